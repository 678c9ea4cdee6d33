package io.pg2lite.connect.metrics;

/**
 * The attributes both tasks publish about the flow of the change log through them; each task's
 * MBean interface extends this one (JMX includes inherited attributes), so the names are the same
 * on both sides.
 */
public interface FlowMBean {
  /** Upstream transactions written (source) or applied (sink) since the task started. */
  long getTransactionsTotal();

  /** Change-log records written or applied since the task started. */
  long getRecordsTotal();

  /** Over the last complete 10-second window. */
  double getTransactionsPerSecond();

  /** Over the last complete 10-second window. */
  double getRecordsPerSecond();

  /** How long ago the last transaction handled committed in Postgres; -1 before the first. */
  long getMillisBehindSource();

  /**
   * Where live transactions' time went in this task, per stage, p50 and p99 over the last 1,024
   * transactions (StageTimes): the source from the Postgres commit to Kafka's acknowledgement, the
   * sink and a follower from the Postgres commit to the replica's commit. The first stage is read
   * against Postgres's clock, the rest against this JVM's. "" before the first.
   */
  String getLatencyStages();

  /** The whole path of {@link #getLatencyStages()}, p50, in milliseconds; -1 before the first. */
  double getCommitLatencyP50Millis();

  /** The whole path of {@link #getLatencyStages()}, p99, in milliseconds; -1 before the first. */
  double getCommitLatencyP99Millis();

  /** Starts the stage windows afresh (an operation), to read one period's stages alone: a measurement, an incident. */
  void resetLatencyStages();
}
