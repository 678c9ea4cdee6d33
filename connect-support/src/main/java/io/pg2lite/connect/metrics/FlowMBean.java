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
}
