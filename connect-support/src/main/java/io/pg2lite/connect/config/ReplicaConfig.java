package io.pg2lite.connect.config;

import java.nio.file.Path;
import org.apache.kafka.common.config.AbstractConfig;
import org.apache.kafka.common.config.ConfigDef;
import org.apache.kafka.common.config.ConfigDef.Importance;
import org.apache.kafka.common.config.ConfigDef.Type;
import org.apache.kafka.common.config.ConfigDef.Width;

/**
 * The settings of a replica following the change log, shared by the sink connector and the replica
 * followers (ADR 0032) so that their names, defaults, bounds and wording cannot drift apart:
 * the replica file, snapshots, lineage and retries. Each adds its own (the sink's admin client, the
 * follower's consumer) and parses these into {@link ReplicaConfig}'s fields.
 */
public final class ReplicaConfig {
  public static final String GROUP_REPLICA = "Replica";
  public static final String GROUP_FAULTS = "Faults";
  public static final String GROUP_SNAPSHOTS = "Snapshots";
  public static final String GROUP_LINEAGE = "Lineage";

  public static final String REPLICA_PATH_CONFIG = "replica.path";
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
      + "transaction when the replica is behind. A batch from Kafka is also always committed at its end, so a "
      + "replica that is caught up commits each transaction at once. An upstream transaction is never split.";
  public static final String MAX_SIZE_CONFIG = "replica.max.size.bytes";
  private static final String MAX_SIZE_DOC = "Largest size the replica file may grow to (SQLite's max_page_count), "
      + "0 for no limit. A transaction that would pass it is rolled back (SQLITE_FULL, \"database or disk is full\", "
      + "as on a full disk): one error is logged naming this setting, ReplicaFullSince shows it in the metrics, and "
      + "the replica is retried from its last commit, with no time limit, losing nothing. Raise the limit to go on "
      + "(a restart with the new setting).";

  public static final String SNAPSHOT_DIR_CONFIG = "snapshot.dir";
  public static final String SNAPSHOT_INTERVAL_CONFIG = "snapshot.interval.ms";
  private static final String SNAPSHOT_INTERVAL_DOC = "Time between two snapshots (one is skipped when nothing was "
      + "applied since the last). The topic's retention must be longer than this plus the longest outage a replica "
      + "must survive.";
  public static final String SNAPSHOT_KEEP_CONFIG = "snapshot.keep";
  private static final String SNAPSHOT_KEEP_DOC = "How many snapshots of the change log the store keeps; each writer "
      + "of snapshots deletes the older ones after publishing.";

  public static final String S3_BUCKET_CONFIG = "snapshot.s3.bucket";
  private static final String S3_BUCKET_DOC = "Keep the snapshots in this S3 bucket instead of a directory (AWS S3 or "
      + "any S3-compatible store: set snapshot.s3.endpoint). Publishing uploads the data object, then its manifest "
      + "(a snapshot exists once its manifest does); large snapshots go up in parts; a restore streams the object and "
      + "checks it against the manifest's size and SHA-256. Needs the permissions to list, get, put and delete "
      + "objects and to list and abort multipart uploads under the prefix. Empty (the default): no S3 store. Not "
      + "together with snapshot.dir.";
  public static final String S3_PREFIX_CONFIG = "snapshot.s3.prefix";
  private static final String S3_PREFIX_DOC = "Key prefix of the snapshots in the bucket (a '/' is added); snapshots "
      + "of a change log are under <prefix><topic>-<partition>/.";
  public static final String S3_REGION_CONFIG = "snapshot.s3.region";
  private static final String S3_REGION_DOC = "The bucket's region. Empty: the AWS SDK's default region chain "
      + "(AWS_REGION, the profile, instance metadata), or us-east-1 with snapshot.s3.endpoint.";
  public static final String S3_ENDPOINT_CONFIG = "snapshot.s3.endpoint";
  private static final String S3_ENDPOINT_DOC = "The S3 API endpoint of an S3-compatible store (MinIO, Ceph, R2, "
      + "S3Proxy...), e.g. https://minio.example:9000. Empty: AWS S3.";
  public static final String S3_PATH_STYLE_CONFIG = "snapshot.s3.path.style";
  private static final String S3_PATH_STYLE_DOC = "Address the bucket in the path (https://host/bucket/key) rather "
      + "than the host name: most S3-compatible stores need it.";
  public static final String S3_ACCESS_KEY_ID_CONFIG = "snapshot.s3.access.key.id";
  private static final String S3_ACCESS_KEY_ID_DOC = "Access key id, with snapshot.s3.secret.access.key. Empty: "
      + "the AWS SDK's default credentials chain (environment, profile, web identity, container or instance role). "
      + "Config providers work (${file:...}, ${env:...}).";
  public static final String S3_SECRET_ACCESS_KEY_CONFIG = "snapshot.s3.secret.access.key";
  private static final String S3_SECRET_ACCESS_KEY_DOC = "Secret access key, with snapshot.s3.access.key.id.";
  public static final String S3_PART_SIZE_CONFIG = "snapshot.s3.part.size.bytes";
  private static final String S3_PART_SIZE_DOC = "Snapshots larger than this go up as a multipart upload in parts of "
      + "this size (S3 allows 5 MiB to 5 GiB).";

  public static final String RESYNC_AUTO_CONFIG = "resync.auto";
  private static final String RESYNC_AUTO_DOC = "What happens when records the replica needs were deleted from "
      + "the topic (retention shorter than an outage, kafka-delete-records) and no snapshot restored it: its lineage "
      + "cannot go on. false (the default): it fails \"replica too far behind\". true: it keeps running, readers keep "
      + "the replica as it is, it logs one error (then a warning every 5 minutes) and shows StrandedSince in its "
      + "metrics, and its consumer group commits its position with a mark asking for a new lineage; a source "
      + "connector with resync.auto=true starts one, and the new replica is built beside the old one and swapped in "
      + "once every table is copied. Every replica of the change log rebuilds then. A new replica whose log lost its "
      + "beginning asks the same way.";

  public final Path replicaPath;
  public final String journalMode;
  public final String synchronous;
  public final int busyTimeoutMs;
  public final int maxTransactionsPerCommit;
  public final long maxSizeBytes;
  public final long retryTimeoutMs;
  public final long retryBackoffMaxMs;
  /** Null when the store is not a directory (another store, or none). */
  public final Path snapshotDir;
  public final long snapshotIntervalMs;
  public final int snapshotKeep;
  /** Wait for a new lineage instead of failing when records the replica needs are gone. */
  public final boolean resyncAuto;
  /** The S3 store's settings; empty without {@code snapshot.s3.bucket}. */
  public final java.util.Optional<S3> s3;

  /** The {@code snapshot.s3.*} settings as given (the store checks them further). */
  public record S3(String bucket, String prefix, String region, String endpoint, boolean pathStyle,
      String accessKeyId, String secretAccessKey, long partSizeBytes) {
    @Override
    public String toString() {
      return "S3[bucket=" + bucket + ", prefix=" + prefix + ", endpoint=" + endpoint + "]"; // no secret in logs
    }
  }

  /** Parses the shared settings out of a config built on a {@link ConfigDef} that {@link #define}d them. */
  public ReplicaConfig(AbstractConfig c) {
    replicaPath = Path.of(c.getString(REPLICA_PATH_CONFIG));
    journalMode = c.getString(JOURNAL_MODE_CONFIG);
    synchronous = c.getString(SYNCHRONOUS_CONFIG);
    busyTimeoutMs = c.getInt(BUSY_TIMEOUT_CONFIG);
    maxTransactionsPerCommit = c.getInt(MAX_TX_PER_COMMIT_CONFIG);
    maxSizeBytes = c.getLong(MAX_SIZE_CONFIG);
    retryTimeoutMs = c.getLong(RetrySettings.TIMEOUT_CONFIG);
    retryBackoffMaxMs = c.getLong(RetrySettings.BACKOFF_MAX_CONFIG);
    String dir = c.getString(SNAPSHOT_DIR_CONFIG).trim();
    snapshotDir = dir.isEmpty() ? null : Path.of(dir);
    snapshotIntervalMs = c.getLong(SNAPSHOT_INTERVAL_CONFIG);
    snapshotKeep = c.getInt(SNAPSHOT_KEEP_CONFIG);
    resyncAuto = c.getBoolean(RESYNC_AUTO_CONFIG);
    String bucket = c.getString(S3_BUCKET_CONFIG).trim();
    org.apache.kafka.common.config.types.Password secret = c.getPassword(S3_SECRET_ACCESS_KEY_CONFIG);
    s3 = bucket.isEmpty() ? java.util.Optional.empty() : java.util.Optional.of(new S3(bucket,
        c.getString(S3_PREFIX_CONFIG).trim(), c.getString(S3_REGION_CONFIG).trim(), c.getString(S3_ENDPOINT_CONFIG)
        .trim(), c.getBoolean(S3_PATH_STYLE_CONFIG), c.getString(S3_ACCESS_KEY_ID_CONFIG).trim(),
        secret == null ? "" : secret.value(), c.getLong(S3_PART_SIZE_CONFIG)));
    if (s3.isPresent() && snapshotDir != null) {
      throw new org.apache.kafka.common.config.ConfigException(S3_BUCKET_CONFIG, bucket, "a replica has one snapshot "
          + "store: set " + SNAPSHOT_DIR_CONFIG + " or " + S3_BUCKET_CONFIG + ", not both");
    }
  }

  /** Whether a snapshot store (a directory or a bucket) is configured. */
  public boolean hasSnapshotStore() {
    return snapshotDir != null || s3.isPresent();
  }

  /** How the writer differs: its replica's doc, its snapshot directory's doc and the default snapshot interval. */
  public record Wording(String replicaPathDoc, String snapshotDirDoc, long snapshotIntervalDefault,
      long snapshotIntervalMin) {}

  /** Adds the shared settings to {@code def}: the replica group at positions 1 to 5 and 7, snapshots 1 to 3, and the rest. */
  public static ConfigDef define(ConfigDef def, Wording w) {
    def.define(REPLICA_PATH_CONFIG, Type.STRING, ConfigDef.NO_DEFAULT_VALUE, new ConfigDef.NonEmptyString(),
            Importance.HIGH, w.replicaPathDoc(), GROUP_REPLICA, 1, Width.LONG, "Replica file")
        .define(JOURNAL_MODE_CONFIG, Type.STRING, "WAL", ConfigDef.ValidString.in("WAL", "DELETE", "TRUNCATE"),
            Importance.LOW, JOURNAL_MODE_DOC, GROUP_REPLICA, 2, Width.SHORT, "Journal mode")
        .define(SYNCHRONOUS_CONFIG, Type.STRING, "NORMAL", ConfigDef.ValidString.in("OFF", "NORMAL", "FULL", "EXTRA"),
            Importance.LOW, SYNCHRONOUS_DOC, GROUP_REPLICA, 3, Width.SHORT, "Synchronous")
        .define(BUSY_TIMEOUT_CONFIG, Type.INT, 30_000, ConfigDef.Range.atLeast(0), Importance.LOW, BUSY_TIMEOUT_DOC,
            GROUP_REPLICA, 4, Width.SHORT, "Busy timeout")
        .define(MAX_TX_PER_COMMIT_CONFIG, Type.INT, 1000, ConfigDef.Range.atLeast(1), Importance.LOW,
            MAX_TX_PER_COMMIT_DOC, GROUP_REPLICA, 5, Width.SHORT, "Transactions per SQLite commit")
        .define(MAX_SIZE_CONFIG, Type.LONG, 0L, ConfigDef.Range.atLeast(0), Importance.LOW, MAX_SIZE_DOC,
            GROUP_REPLICA, 7, Width.SHORT, "Replica size limit")
        .define(SNAPSHOT_DIR_CONFIG, Type.STRING, "", Importance.MEDIUM, w.snapshotDirDoc(), GROUP_SNAPSHOTS, 1,
            Width.LONG, "Snapshot directory")
        .define(SNAPSHOT_INTERVAL_CONFIG, Type.LONG, w.snapshotIntervalDefault(),
            ConfigDef.Range.atLeast(w.snapshotIntervalMin()), Importance.MEDIUM, SNAPSHOT_INTERVAL_DOC,
            GROUP_SNAPSHOTS, 2, Width.SHORT, "Snapshot interval")
        .define(SNAPSHOT_KEEP_CONFIG, Type.INT, 3, ConfigDef.Range.atLeast(1), Importance.LOW, SNAPSHOT_KEEP_DOC,
            GROUP_SNAPSHOTS, 3, Width.SHORT, "Snapshots kept")
        .define(S3_BUCKET_CONFIG, Type.STRING, "", Importance.MEDIUM, S3_BUCKET_DOC, GROUP_SNAPSHOTS, 4, Width.MEDIUM,
            "S3 bucket")
        .define(S3_PREFIX_CONFIG, Type.STRING, "", Importance.LOW, S3_PREFIX_DOC, GROUP_SNAPSHOTS, 5, Width.MEDIUM,
            "S3 key prefix")
        .define(S3_REGION_CONFIG, Type.STRING, "", Importance.LOW, S3_REGION_DOC, GROUP_SNAPSHOTS, 6, Width.SHORT,
            "S3 region")
        .define(S3_ENDPOINT_CONFIG, Type.STRING, "", Importance.LOW, S3_ENDPOINT_DOC, GROUP_SNAPSHOTS, 7, Width.LONG,
            "S3 endpoint")
        .define(S3_PATH_STYLE_CONFIG, Type.BOOLEAN, false, Importance.LOW, S3_PATH_STYLE_DOC, GROUP_SNAPSHOTS, 8,
            Width.SHORT, "S3 path-style access")
        .define(S3_ACCESS_KEY_ID_CONFIG, Type.STRING, "", Importance.LOW, S3_ACCESS_KEY_ID_DOC, GROUP_SNAPSHOTS, 9,
            Width.MEDIUM, "S3 access key id")
        .define(S3_SECRET_ACCESS_KEY_CONFIG, Type.PASSWORD, "", Importance.LOW, S3_SECRET_ACCESS_KEY_DOC,
            GROUP_SNAPSHOTS, 10, Width.MEDIUM, "S3 secret access key")
        .define(S3_PART_SIZE_CONFIG, Type.LONG, 16L << 20, ConfigDef.Range.between(5L << 20, 5L << 30), Importance.LOW,
            S3_PART_SIZE_DOC, GROUP_SNAPSHOTS, 11, Width.SHORT, "S3 part size")
        .define(RESYNC_AUTO_CONFIG, Type.BOOLEAN, false, Importance.MEDIUM, RESYNC_AUTO_DOC, GROUP_LINEAGE, 1,
            Width.SHORT, "Ask for a new lineage");
    return RetrySettings.define(def, GROUP_FAULTS, "the replica locked by another process past "
        + BUSY_TIMEOUT_CONFIG, "Each retry rolls back what was not committed and reads again from the replica's offset. "
        + "A full replica (its disk, or " + MAX_SIZE_CONFIG + ") is retried the same way but without this limit: "
        + "waiting loses nothing, and only room made from outside cures it. ");
  }
}
