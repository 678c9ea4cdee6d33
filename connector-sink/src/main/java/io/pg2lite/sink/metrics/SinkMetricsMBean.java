package io.pg2lite.sink.metrics;

/** JMX view of a running sink task: {@code io.pg2lite:type=sink,connector=<name>}. */
public interface SinkMetricsMBean {
  /** Watermark of the last upstream transaction committed to the replica. */
  String getReplicaWatermark();

  /** Kafka offset of that transaction's commit record. */
  long getReplicaOffset();

  /** Milliseconds between that transaction's upstream commit and its commit to the replica; -1 before any. */
  long getMillisBehindSource();

  /**
   * Records between the replica's position and the end of the change log (approximate: Kafka
   * transaction markers take offsets too); read when asked, at most every 5 s; -1 when unknown
   * (no {@code kafka.bootstrap.servers}, or the broker cannot be asked).
   */
  long getLagRecords();

  long getTransactionsTotal();

  long getRecordsTotal();

  /** Upstream transactions applied per second, over the last completed 10-second window. */
  double getTransactionsPerSecond();

  /** Change-log records applied per second, over the last completed 10-second window. */
  double getRecordsPerSecond();
}
