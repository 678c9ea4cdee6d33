package io.pg2lite.source.kafka;

import java.util.Map;
import java.util.Optional;

/**
 * The rule between the source producer's two timeouts that a hung broker puts to the test.
 *
 * <p>A broker that hangs (SIGSTOP, a long GC pause, a frozen VM) keeps its connections open and
 * answers nothing. The producer's request to it, a record of an open Kafka transaction or the
 * transaction's commit, waits {@code request.timeout.ms} (30 s by default) before it is retried on
 * the partition's new leader or the new transaction coordinator. Meanwhile the transaction ages
 * at its coordinator, which aborts it once it has been open {@code transaction.timeout.ms} (60 s by
 * default). If that comes first, the retried commit fails with an old producer epoch, and Connect
 * fails the task for good: only a REST restart brings it back (seen on a three-broker cluster
 * with a 15-s transaction timeout: {@code ClusterFaultsIT}, ADR 0039). So the transaction timeout
 * must exceed the request timeout by the time a transaction is already open when its request
 * goes out (pg2lite's Kafka transactions last seconds: source-connector.md, "Huge transactions")
 * plus the retry: {@link #MARGIN_MS}.
 *
 * <p>Only the connector's own overrides are visible here; a worker-wide {@code producer.*} setting
 * is the worker's to keep right (operations.md says so).
 */
public final class TransactionTimeouts {
  public static final String TRANSACTION_TIMEOUT = "producer.override.transaction.timeout.ms";
  public static final String REQUEST_TIMEOUT = "producer.override.request.timeout.ms";
  /** Kafka's default {@code request.timeout.ms} of a producer. */
  static final long DEFAULT_REQUEST_TIMEOUT_MS = 30_000;
  /** Kafka's default {@code transaction.timeout.ms} of a producer. */
  static final long DEFAULT_TRANSACTION_TIMEOUT_MS = 60_000;
  /** How much longer than a request a transaction must be allowed to stay open. */
  static final long MARGIN_MS = 10_000;

  private TransactionTimeouts() {}

  /**
   * What is wrong with the connector's producer timeouts, for an error on
   * {@link #TRANSACTION_TIMEOUT}; empty when the connector overrides neither (the worker's own, or
   * Kafka's defaults, apply) or the pair is right. The one not overridden is taken at Kafka's
   * default. Values that are not numbers are left to Kafka's own check.
   */
  public static Optional<String> problem(Map<String, String> connectorConfig) {
    Long transactionOverride = number(connectorConfig.get(TRANSACTION_TIMEOUT));
    Long override = number(connectorConfig.get(REQUEST_TIMEOUT));
    if (transactionOverride == null && override == null) {
      return Optional.empty();
    }
    long transaction = transactionOverride == null ? DEFAULT_TRANSACTION_TIMEOUT_MS : transactionOverride;
    long request = override == null ? DEFAULT_REQUEST_TIMEOUT_MS : override;
    if (transaction >= request + MARGIN_MS) {
      return Optional.empty();
    }
    return Optional.of(TRANSACTION_TIMEOUT + " is " + transaction + " ms" + (transactionOverride == null
        ? " (Kafka's default)" : "") + ", but must be at least " + (request + MARGIN_MS)
        + " ms: the producer's request.timeout.ms (" + request + " ms" + (override == null ? ", Kafka's default" : "")
        + ") plus " + MARGIN_MS + " ms. A request to a broker that hangs waits request.timeout.ms before it is retried"
        + " on another broker; if the transaction times out first, the broker aborts it and Connect fails the task"
        + " until it is restarted. Raise " + TRANSACTION_TIMEOUT + " or lower " + REQUEST_TIMEOUT
        + " (docs/source-connector.md, \"Failures and what they say\").");
  }

  private static Long number(String value) {
    if (value == null || value.isBlank()) {
      return null;
    }
    try {
      return Long.parseLong(value.trim());
    } catch (NumberFormatException e) {
      return null;
    }
  }
}
