package io.pg2lite.sink.config;

import java.nio.file.Path;
import java.util.Map;
import io.pg2lite.connect.config.KafkaClientSettings;
import io.pg2lite.connect.config.RetrySettings;
import org.apache.kafka.common.config.AbstractConfig;
import org.apache.kafka.common.config.ConfigDef;
import org.apache.kafka.common.config.ConfigDef.Importance;
import org.apache.kafka.common.config.ConfigDef.Type;
import org.apache.kafka.common.config.ConfigDef.Width;

/** The sink connector's configuration, parsed once into typed final fields. */
public final class SinkConfig {
  private static final String GROUP_REPLICA = "Replica";
  private static final String GROUP_FAULTS = "Faults";
  private static final String GROUP_SNAPSHOTS = "Snapshots";
  private static final String GROUP_LINEAGE = "Lineage";

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

  public static final String MAX_SIZE_CONFIG = "replica.max.size.bytes";
  private static final String MAX_SIZE_DOC = "Largest size the replica file may grow to (SQLite's max_page_count), "
      + "0 for no limit. A transaction that would pass it is rolled back (SQLITE_FULL, \"database or disk is full\", "
      + "as on a full disk): the task logs one error naming this setting, shows ReplicaFullSince in its MBean and "
      + "retries from the replica's last commit, with no time limit, losing nothing. Raise the limit to go on: the "
      + "task restarts with the new config.";
  public static final String RETRY_TIMEOUT_CONFIG = RetrySettings.TIMEOUT_CONFIG;
  public static final String RETRY_BACKOFF_MAX_CONFIG = RetrySettings.BACKOFF_MAX_CONFIG;

  public static final String KAFKA_BOOTSTRAP_CONFIG = KafkaClientSettings.BOOTSTRAP_CONFIG;
  private static final String KAFKA_BOOTSTRAP_DOC = "Bootstrap servers of the change log's cluster, for the sink's "
      + "own admin client: the lag metric, and an early check on start that the replica's next offset is still in "
      + "the topic. Optional: gaps in the log are always detected from the records' sequence numbers, and stop the "
      + "task with \"replica too far behind\". Other admin settings go in kafka.* keys.";

  public static final String SNAPSHOT_DIR_CONFIG = "snapshot.dir";
  private static final String SNAPSHOT_DIR_DOC = "Directory of the replica snapshots, shared by every sink of this "
      + "change log (a local directory, or a mount every worker sees). Empty (the default): no snapshots. When set, "
      + "the sink publishes a snapshot of its replica every snapshot.interval.ms, and a sink whose replica file is "
      + "missing (a new sink, or a task moved to another worker) restores the newest snapshot the topic still "
      + "covers, then catches up by offset, instead of replaying the whole log. Needs kafka.bootstrap.servers.";
  public static final String SNAPSHOT_INTERVAL_CONFIG = "snapshot.interval.ms";
  private static final String SNAPSHOT_INTERVAL_DOC = "Time between two snapshots (one is skipped when nothing was "
      + "applied since the last). The topic's retention must be longer than this plus the longest outage a replica "
      + "must survive.";
  public static final String SNAPSHOT_KEEP_CONFIG = "snapshot.keep";
  private static final String SNAPSHOT_KEEP_DOC = "How many snapshots of the change log the store keeps; each sink "
      + "deletes the older ones after publishing.";

  public static final String RESYNC_AUTO_CONFIG = "resync.auto";
  private static final String RESYNC_AUTO_DOC = "What the sink does when records its replica needs were deleted from "
      + "the topic (retention shorter than an outage, kafka-delete-records) and no snapshot restored it: its lineage "
      + "cannot go on. false (the default): the task fails \"replica too far behind\". true: the task keeps running, "
      + "readers keep the replica as it is, it logs one error (then a warning every 5 minutes) and shows "
      + "StrandedSince in its MBean, and its consumer group commits its position with a mark asking for a new "
      + "lineage; a source connector with resync.auto=true starts one, and this sink builds the new replica beside "
      + "the old one and swaps it in once every table is copied. Every replica of the change log rebuilds then. A new "
      + "replica whose log lost its beginning asks the same way.";

  public static ConfigDef configDef() {
    ConfigDef def = new ConfigDef()
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
            Width.LONG, "Kafka bootstrap servers")
        .define(MAX_SIZE_CONFIG, Type.LONG, 0L, ConfigDef.Range.atLeast(0), Importance.LOW, MAX_SIZE_DOC,
            GROUP_REPLICA, 7, Width.SHORT, "Replica size limit")
        .define(SNAPSHOT_DIR_CONFIG, Type.STRING, "", Importance.MEDIUM, SNAPSHOT_DIR_DOC, GROUP_SNAPSHOTS, 1,
            Width.LONG, "Snapshot directory")
        .define(SNAPSHOT_INTERVAL_CONFIG, Type.LONG, 3_600_000L, ConfigDef.Range.atLeast(1000), Importance.MEDIUM,
            SNAPSHOT_INTERVAL_DOC, GROUP_SNAPSHOTS, 2, Width.SHORT, "Snapshot interval")
        .define(SNAPSHOT_KEEP_CONFIG, Type.INT, 3, ConfigDef.Range.atLeast(1), Importance.LOW, SNAPSHOT_KEEP_DOC,
            GROUP_SNAPSHOTS, 3, Width.SHORT, "Snapshots kept")
        .define(RESYNC_AUTO_CONFIG, Type.BOOLEAN, false, Importance.MEDIUM, RESYNC_AUTO_DOC, GROUP_LINEAGE, 1,
            Width.SHORT, "Ask for a new lineage");
    return RetrySettings.define(def, GROUP_FAULTS, "the replica locked by another process past "
        + BUSY_TIMEOUT_CONFIG, "Each retry rolls back what was not committed and reads again from the replica's offset. "
        + "A full replica (its disk, or " + MAX_SIZE_CONFIG + ") is retried the same way but without this limit: "
        + "waiting loses nothing, and only room made from outside cures it. ");
  }

  public final Path replicaPath;
  public final String journalMode;
  public final String synchronous;
  public final int busyTimeoutMs;
  public final int maxTransactionsPerCommit;
  public final String kafkaBootstrapServers;
  public final long maxSizeBytes;
  public final long retryTimeoutMs;
  public final long retryBackoffMaxMs;
  /** Null when snapshots are off. */
  public final Path snapshotDir;
  public final long snapshotIntervalMs;
  public final int snapshotKeep;
  /** Wait for a new lineage instead of failing when records the replica needs are gone. */
  public final boolean resyncAuto;
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
    maxSizeBytes = c.getLong(MAX_SIZE_CONFIG);
    retryTimeoutMs = c.getLong(RETRY_TIMEOUT_CONFIG);
    retryBackoffMaxMs = c.getLong(RETRY_BACKOFF_MAX_CONFIG);
    kafkaClientProps = kafkaClientProps(props);
    String dir = c.getString(SNAPSHOT_DIR_CONFIG).trim();
    snapshotDir = dir.isEmpty() ? null : Path.of(dir);
    snapshotIntervalMs = c.getLong(SNAPSHOT_INTERVAL_CONFIG);
    snapshotKeep = c.getInt(SNAPSHOT_KEEP_CONFIG);
    resyncAuto = c.getBoolean(RESYNC_AUTO_CONFIG);
    if (snapshotDir != null && kafkaBootstrapServers.isEmpty()) {
      throw new org.apache.kafka.common.config.ConfigException(SNAPSHOT_DIR_CONFIG, dir, "snapshots need "
          + KAFKA_BOOTSTRAP_CONFIG + ": a restore checks that the topic still holds what follows a snapshot");
    }
  }

  /** The sink's own Kafka client settings: the {@code kafka.*} keys without the prefix (bootstrap servers apart). */
  public static Map<String, Object> kafkaClientProps(Map<String, String> props) {
    return KafkaClientSettings.clientProps(props);
  }
}
