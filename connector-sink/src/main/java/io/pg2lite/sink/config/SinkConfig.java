package io.pg2lite.sink.config;

import java.util.Map;
import io.pg2lite.connect.config.KafkaClientSettings;
import io.pg2lite.connect.config.ReplicaConfig;
import io.pg2lite.connect.config.RetrySettings;
import io.pg2lite.replica.verify.MismatchPolicy;
import org.apache.kafka.common.config.AbstractConfig;
import org.apache.kafka.common.config.ConfigDef;
import org.apache.kafka.common.config.ConfigDef.Importance;
import org.apache.kafka.common.config.ConfigDef.Type;
import org.apache.kafka.common.config.ConfigDef.Width;

/** The sink connector's configuration, parsed once into typed final fields. */
public final class SinkConfig {
  public static final String REPLICA_PATH_CONFIG = ReplicaConfig.REPLICA_PATH_CONFIG;
  private static final String REPLICA_PATH_DOC = "Path of the SQLite replica file (created if missing). One sink "
      + "connector writes one replica; fan out with more connectors, or with replica followers beside it.";
  public static final String JOURNAL_MODE_CONFIG = ReplicaConfig.JOURNAL_MODE_CONFIG;
  public static final String SYNCHRONOUS_CONFIG = ReplicaConfig.SYNCHRONOUS_CONFIG;
  public static final String BUSY_TIMEOUT_CONFIG = ReplicaConfig.BUSY_TIMEOUT_CONFIG;
  public static final String MAX_TX_PER_COMMIT_CONFIG = ReplicaConfig.MAX_TX_PER_COMMIT_CONFIG;
  public static final String MAX_SIZE_CONFIG = ReplicaConfig.MAX_SIZE_CONFIG;
  public static final String RETRY_TIMEOUT_CONFIG = RetrySettings.TIMEOUT_CONFIG;
  public static final String RETRY_BACKOFF_MAX_CONFIG = RetrySettings.BACKOFF_MAX_CONFIG;

  public static final String KAFKA_BOOTSTRAP_CONFIG = KafkaClientSettings.BOOTSTRAP_CONFIG;
  private static final String KAFKA_BOOTSTRAP_DOC = "Bootstrap servers of the change log's cluster, for the sink's "
      + "own admin client: the lag metric, an early check on start that the replica's next offset is still in "
      + "the topic, and the report of a hanging Kafka transaction (hanging.transactions.abort). Optional: gaps in "
      + "the log are always detected from the records' sequence numbers, and stop the task with \"replica too far "
      + "behind\". Other admin settings go in kafka.* keys.";

  public static final String HANGING_ABORT_CONFIG = "hanging.transactions.abort";
  private static final String HANGING_ABORT_DOC = "What the sink does about a hanging Kafka transaction on the "
      + "change log: one that the partition holds open while its coordinator does not (KIP-664; a broker restart can "
      + "leave one), so that nothing will ever end it and every read_committed reader, this sink among them, waits "
      + "behind it. With kafka.bootstrap.servers set, the sink looks whenever it has been given nothing for 10 s while "
      + "the log's last stable offset is below its high watermark. It reports a transaction whose producer has not "
      + "written for 30 s and that a second look 10 s later still finds: one WARN line naming the partition, the "
      + "producer and the runbook step, and HangingTransactions in its metrics. false (the default): it only reports, "
      + "and the operator aborts (operations.md). true: it also aborts it, as kafka-transactions.sh abort does: its "
      + "records are dropped, and a pg2lite source sends them again (it stored no offset of them). The abort needs "
      + "Alter (or ClusterAction) on the Cluster for the sink's own admin client (kafka.*).";

  public static final String VERIFY_MISMATCH_CONFIG = MismatchPolicy.CONFIG;

  public static final String SNAPSHOT_DIR_CONFIG = ReplicaConfig.SNAPSHOT_DIR_CONFIG;
  private static final String SNAPSHOT_DIR_DOC = "Directory of the replica snapshots, shared by every sink and "
      + "follower of this change log (a local directory, or a mount every worker sees). Empty (the default): no "
      + "snapshots. When set, the sink publishes a snapshot of its replica every snapshot.interval.ms, and a sink "
      + "whose replica file is missing (a new sink, or a task moved to another worker) restores the newest snapshot "
      + "the topic still covers, then catches up by offset, instead of replaying the whole log. Needs "
      + "kafka.bootstrap.servers.";
  public static final String SNAPSHOT_INTERVAL_CONFIG = ReplicaConfig.SNAPSHOT_INTERVAL_CONFIG;
  public static final String SNAPSHOT_KEEP_CONFIG = ReplicaConfig.SNAPSHOT_KEEP_CONFIG;
  public static final String RESYNC_AUTO_CONFIG = ReplicaConfig.RESYNC_AUTO_CONFIG;

  public static ConfigDef configDef() {
    ConfigDef def = new ConfigDef()
        .define(KAFKA_BOOTSTRAP_CONFIG, Type.STRING, "", Importance.HIGH, KAFKA_BOOTSTRAP_DOC,
            ReplicaConfig.GROUP_REPLICA, 6, Width.LONG, "Kafka bootstrap servers")
        .define(HANGING_ABORT_CONFIG, Type.BOOLEAN, false, Importance.LOW, HANGING_ABORT_DOC,
            ReplicaConfig.GROUP_FAULTS, 3, Width.SHORT, "Abort hanging Kafka transactions")
        .define(VERIFY_MISMATCH_CONFIG, Type.STRING, "log", ConfigDef.ValidString.in(MismatchPolicy.names()),
            Importance.MEDIUM, MismatchPolicy.DOC, ReplicaConfig.GROUP_FAULTS, 4, Width.SHORT,
            "On a verification mismatch");
    return ReplicaConfig.define(def, new ReplicaConfig.Wording(REPLICA_PATH_DOC, SNAPSHOT_DIR_DOC, 3_600_000L, 1000L));
  }

  public final String kafkaBootstrapServers;
  /** Settings for the sink's admin client: {@code kafka.*} without the prefix. */
  public final Map<String, Object> kafkaClientProps;

  /** Abort a hanging transaction on the change log, not only report it. */
  public final boolean hangingTransactionsAbort;

  /** What a verification that finds the replica different from Postgres does. */
  public final MismatchPolicy verifyMismatch;

  /** The settings the sink shares with the followers, snapshot stores included. */
  public final ReplicaConfig replica;

  public SinkConfig(Map<String, String> props) {
    AbstractConfig c = new AbstractConfig(configDef(), props, false);
    ReplicaConfig r = new ReplicaConfig(c);
    replica = r;
    kafkaBootstrapServers = c.getString(KAFKA_BOOTSTRAP_CONFIG);
    kafkaClientProps = kafkaClientProps(props);
    hangingTransactionsAbort = c.getBoolean(HANGING_ABORT_CONFIG);
    verifyMismatch = MismatchPolicy.of(c.getString(VERIFY_MISMATCH_CONFIG));
    if (r.hasSnapshotStore() && kafkaBootstrapServers.isEmpty()) {
      throw new org.apache.kafka.common.config.ConfigException(r.snapshotDir != null ? SNAPSHOT_DIR_CONFIG
          : ReplicaConfig.S3_BUCKET_CONFIG, r.snapshotDir != null ? r.snapshotDir.toString() : r.s3.get().bucket(),
          "snapshots need "
          + KAFKA_BOOTSTRAP_CONFIG + ": a restore checks that the topic still holds what follows a snapshot");
    }
  }

  /** The sink's own Kafka client settings: the {@code kafka.*} keys without the prefix (bootstrap servers apart). */
  public static Map<String, Object> kafkaClientProps(Map<String, String> props) {
    return KafkaClientSettings.clientProps(props);
  }
}
