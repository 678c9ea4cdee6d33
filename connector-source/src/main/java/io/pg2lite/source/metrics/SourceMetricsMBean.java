package io.pg2lite.source.metrics;

/** JMX view of a running source task: {@code io.pg2lite:type=source,connector=<name>}. */
public interface SourceMetricsMBean {
  /** Watermark of the last upstream commit written to the change log. */
  String getLastCommitWatermark();

  long getTransactionsTotal();

  long getRecordsTotal();

  /** Upstream transactions written per second, over the last completed 10-second window. */
  double getTransactionsPerSecond();

  /** Change-log records written per second, over the last completed 10-second window. */
  double getRecordsPerSecond();

  /**
   * Bytes of WAL the slot retains: the server's current WAL position minus the slot's confirmed
   * flush position. Queried when read, at most every 5 seconds; -1 when Postgres cannot be asked.
   */
  long getSlotLagBytes();

  /** Milliseconds between the last written transaction's upstream commit and its writing; -1 before any. */
  long getMillisBehindSource();

  /**
   * The copies under way as the source writes them, one per table, "; "-separated: rows copied of
   * the rows in the copy's snapshot, the rate and the time left at that rate, e.g. {@code
   * public.big 300,000/1,000,000 rows (30%), 98,000 rows/s, ETA 8 s}; empty when none runs.
   */
  String getBackfillProgress();

  /** Rows still to copy, over all copies under way. */
  long getBackfillRowsRemaining();
}
