package io.pg2lite.sink.config;

import java.nio.file.Path;
import java.util.Map;
import org.apache.kafka.common.config.AbstractConfig;
import org.apache.kafka.common.config.ConfigDef;
import org.apache.kafka.common.config.ConfigDef.Importance;
import org.apache.kafka.common.config.ConfigDef.Type;
import org.apache.kafka.common.config.ConfigDef.Width;

/** The sink connector's configuration, parsed once into typed final fields. */
public final class SinkConfig {
  private static final String GROUP_REPLICA = "Replica";

  public static final String REPLICA_PATH_CONFIG = "replica.path";
  private static final String REPLICA_PATH_DOC = "Path of the SQLite replica file (created if missing). One sink "
      + "connector writes one replica; fan out with more connectors.";
  public static final String JOURNAL_MODE_CONFIG = "replica.journal.mode";
  private static final String JOURNAL_MODE_DOC = "SQLite journal mode. WAL lets readers run during apply and never "
      + "see a partial transaction.";
  public static final String SYNCHRONOUS_CONFIG = "replica.synchronous";
  private static final String SYNCHRONOUS_DOC = "SQLite synchronous setting. NORMAL in WAL mode may lose the last "
      + "transactions on power loss, never consistency: the replica re-reads them from Kafka by offset.";
  public static final String BUSY_TIMEOUT_CONFIG = "replica.busy.timeout.ms";
  private static final String BUSY_TIMEOUT_DOC = "How long to wait for a lock held by another connection.";
  public static final String MAX_TX_PER_COMMIT_CONFIG = "replica.coalesce.max.transactions";
  private static final String MAX_TX_PER_COMMIT_DOC = "At most this many upstream transactions share one SQLite "
      + "transaction when the sink is behind. A batch from Kafka is also always committed at its end, so a sink "
      + "that is caught up commits each transaction at once. An upstream transaction is never split.";

  public static final String KAFKA_BOOTSTRAP_CONFIG = "kafka.bootstrap.servers";
  private static final String KAFKA_BOOTSTRAP_DOC = "Bootstrap servers of the change log's cluster, for the sink's "
      + "own admin client: on start it checks that the replica's next offset is still in the topic (retention may "
      + "have deleted it), and fails with \"replica too far behind\" instead of silently skipping transactions. "
      + "Empty: the check is skipped (not recommended). Other admin settings go in kafka.* keys.";

  public static ConfigDef configDef() {
    return new ConfigDef()
        .define(REPLICA_PATH_CONFIG, Type.STRING, ConfigDef.NO_DEFAULT_VALUE, new ConfigDef.NonEmptyString(),
            Importance.HIGH, REPLICA_PATH_DOC, GROUP_REPLICA, 1, Width.LONG, "Replica file")
        .define(JOURNAL_MODE_CONFIG, Type.STRING, "WAL", ConfigDef.ValidString.in("WAL", "DELETE", "TRUNCATE"),
            Importance.LOW, JOURNAL_MODE_DOC, GROUP_REPLICA, 2, Width.SHORT, "Journal mode")
        .define(SYNCHRONOUS_CONFIG, Type.STRING, "NORMAL", ConfigDef.ValidString.in("OFF", "NORMAL", "FULL", "EXTRA"),
            Importance.LOW, SYNCHRONOUS_DOC, GROUP_REPLICA, 3, Width.SHORT, "Synchronous")
        .define(BUSY_TIMEOUT_CONFIG, Type.INT, 30_000, ConfigDef.Range.atLeast(0), Importance.LOW, BUSY_TIMEOUT_DOC,
            GROUP_REPLICA, 4, Width.SHORT, "Busy timeout")
        .define(MAX_TX_PER_COMMIT_CONFIG, Type.INT, 1000, ConfigDef.Range.atLeast(1), Importance.LOW,
            MAX_TX_PER_COMMIT_DOC, GROUP_REPLICA, 5, Width.SHORT, "Transactions per SQLite commit")
        .define(KAFKA_BOOTSTRAP_CONFIG, Type.STRING, "", Importance.HIGH, KAFKA_BOOTSTRAP_DOC, GROUP_REPLICA, 6,
            Width.LONG, "Kafka bootstrap servers");
  }

  public final Path replicaPath;
  public final String journalMode;
  public final String synchronous;
  public final int busyTimeoutMs;
  public final int maxTransactionsPerCommit;
  public final String kafkaBootstrapServers;
  /** Settings for the sink's admin client: {@code kafka.*} without the prefix. */
  public final Map<String, Object> kafkaClientProps;

  public SinkConfig(Map<String, String> props) {
    AbstractConfig c = new AbstractConfig(configDef(), props, false);
    replicaPath = Path.of(c.getString(REPLICA_PATH_CONFIG));
    journalMode = c.getString(JOURNAL_MODE_CONFIG);
    synchronous = c.getString(SYNCHRONOUS_CONFIG);
    busyTimeoutMs = c.getInt(BUSY_TIMEOUT_CONFIG);
    maxTransactionsPerCommit = c.getInt(MAX_TX_PER_COMMIT_CONFIG);
    kafkaBootstrapServers = c.getString(KAFKA_BOOTSTRAP_CONFIG);
    Map<String, Object> kafka = new java.util.HashMap<>();
    props.forEach((k, v) -> {
      if (k.startsWith("kafka.") && !k.equals(KAFKA_BOOTSTRAP_CONFIG)) {
        kafka.put(k.substring("kafka.".length()), v);
      }
    });
    kafkaClientProps = Map.copyOf(kafka);
  }
}
