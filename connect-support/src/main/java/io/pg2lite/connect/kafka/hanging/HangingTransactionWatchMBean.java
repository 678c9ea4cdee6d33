package io.pg2lite.connect.kafka.hanging;

/** JMX view of a {@link HangingTransactionWatch}. */
public interface HangingTransactionWatchMBean {
  /** Hanging Kafka transactions reported and still open (a gauge): alert on anything above 0. */
  int getHangingTransactions();

  /** Hanging Kafka transactions this watch aborted since it started (a counter; only with the abort setting on). */
  long getHangingTransactionsAbortedTotal();

  /** The topics the last look was about, comma-separated; "" before the first look. */
  String getWatchedTopics();
}
