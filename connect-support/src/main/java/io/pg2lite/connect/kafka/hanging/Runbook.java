package io.pg2lite.connect.kafka.hanging;

/** The operator's step for a hanging transaction: where the runbook is, and Kafka's command that aborts one. */
public final class Runbook {
  /** The runbook's section. */
  public static final String SECTION = "docs/operations.md#a-hanging-kafka-transaction-after-a-broker-restart";

  private Runbook() {}

  /**
   * {@code kafka-transactions.sh … abort} for {@code h}, as an operator runs it (on a secured
   * cluster, with {@code --command-config} added).
   */
  public static String abortCommand(String bootstrapServers, HangingTransaction h) {
    return "kafka-transactions.sh --bootstrap-server " + bootstrapServers + " abort --topic " + h.partition().topic()
        + " --partition " + h.partition().partition() + " --start-offset " + h.startOffset();
  }
}
