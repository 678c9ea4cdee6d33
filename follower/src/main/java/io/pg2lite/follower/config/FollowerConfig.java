package io.pg2lite.follower.config;

import io.pg2lite.connect.config.KafkaClientSettings;
import io.pg2lite.connect.config.ReplicaConfig;
import io.pg2lite.replica.verify.MismatchPolicy;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.util.Map;
import org.apache.kafka.common.config.AbstractConfig;
import org.apache.kafka.common.config.ConfigDef;
import org.apache.kafka.common.config.ConfigDef.Importance;
import org.apache.kafka.common.config.ConfigDef.Type;
import org.apache.kafka.common.config.ConfigDef.Width;
import org.apache.kafka.common.config.ConfigException;

/**
 * A follower's settings: the replica settings it shares with the sink connector
 * ({@link ReplicaConfig}, same names and meaning), the change log it reads, and its consumer.
 * {@code kafka.*} keys go to its Kafka clients without the prefix, so SASL and TLS are set as for
 * any client ({@code kafka.security.protocol}, {@code kafka.sasl.jaas.config}, ...).
 */
public final class FollowerConfig {
  private static final String GROUP_LOG = "Change log";

  public static final String NAME_CONFIG = "name";
  private static final String NAME_DOC = "This follower's name, in logs, metrics, its writer lock and its default "
      + "consumer group. Default: follower-<host>-<replica file name>.";
  public static final String TOPIC_CONFIG = "topic";
  private static final String TOPIC_DOC = "The change-log topic (the source connector's topic.name); its one "
      + "partition is the log.";
  public static final String KAFKA_BOOTSTRAP_CONFIG = KafkaClientSettings.BOOTSTRAP_CONFIG;
  private static final String KAFKA_BOOTSTRAP_DOC = "Bootstrap servers of the change log's cluster. Other client "
      + "settings (security, timeouts) go in kafka.* keys; the follower sets isolation.level=read_committed, "
      + "enable.auto.commit=false and its group.id itself.";
  public static final String GROUP_ID_CONFIG = "group.id";
  private static final String GROUP_ID_DOC = "The consumer group this follower joins, alone: its committed offset "
      + "shows its progress to Kafka's tools (the replica stores its own position, which is what counts) and carries "
      + "the stranded-replica mark to a source with resync.auto. Each follower needs its own. Default: "
      + "pg2lite-follower-<name>.";
  public static final String POLL_TIMEOUT_CONFIG = "poll.timeout.ms";
  private static final String POLL_TIMEOUT_DOC = "How long one poll of the consumer waits for records.";
  public static final String COMMIT_INTERVAL_CONFIG = "offset.commit.interval.ms";
  private static final String COMMIT_INTERVAL_DOC = "How often the follower commits its position (the replica's "
      + "last commit) to its consumer group.";

  public static final String VERIFY_MISMATCH_CONFIG = MismatchPolicy.CONFIG;

  private static final String REPLICA_PATH_DOC = "Path of the SQLite replica file (created if missing). A replica "
      + "file has exactly one writer: a second follower or sink on the same file refuses to start, naming the file.";
  private static final String SNAPSHOT_DIR_DOC = "Directory of the replica snapshots, shared with the sinks and "
      + "followers of this change log (a local directory or a shared mount). Empty (the default): no snapshot "
      + "store. When set, a follower whose replica file is missing restores the newest snapshot the topic still "
      + "covers, then catches up by offset; it takes snapshots itself only when snapshot.interval.ms is above 0.";

  public static ConfigDef configDef() {
    ConfigDef def = new ConfigDef()
        .define(TOPIC_CONFIG, Type.STRING, ConfigDef.NO_DEFAULT_VALUE, new ConfigDef.NonEmptyString(), Importance.HIGH,
            TOPIC_DOC, GROUP_LOG, 1, Width.LONG, "Change-log topic")
        .define(KAFKA_BOOTSTRAP_CONFIG, Type.STRING, ConfigDef.NO_DEFAULT_VALUE, new ConfigDef.NonEmptyString(),
            Importance.HIGH, KAFKA_BOOTSTRAP_DOC, GROUP_LOG, 2, Width.LONG, "Kafka bootstrap servers")
        .define(NAME_CONFIG, Type.STRING, "", Importance.MEDIUM, NAME_DOC, GROUP_LOG, 3, Width.MEDIUM, "Name")
        .define(GROUP_ID_CONFIG, Type.STRING, "", Importance.MEDIUM, GROUP_ID_DOC, GROUP_LOG, 4, Width.MEDIUM,
            "Consumer group")
        .define(POLL_TIMEOUT_CONFIG, Type.LONG, 500L, ConfigDef.Range.between(1, 60_000), Importance.LOW,
            POLL_TIMEOUT_DOC, GROUP_LOG, 5, Width.SHORT, "Poll timeout")
        .define(COMMIT_INTERVAL_CONFIG, Type.LONG, 5_000L, ConfigDef.Range.atLeast(100), Importance.LOW,
            COMMIT_INTERVAL_DOC, GROUP_LOG, 6, Width.SHORT, "Offset commit interval");
    // A follower takes no snapshots unless asked (0): the sinks usually do.
    return ReplicaConfig.define(def, new ReplicaConfig.Wording(REPLICA_PATH_DOC, SNAPSHOT_DIR_DOC, 0L, 0L))
        .define(VERIFY_MISMATCH_CONFIG, Type.STRING, "log", ConfigDef.ValidString.in(MismatchPolicy.names()),
            Importance.MEDIUM, MismatchPolicy.DOC, ReplicaConfig.GROUP_FAULTS, 3, Width.SHORT,
            "On a verification mismatch");
  }

  public final ReplicaConfig replica;
  public final String name;
  public final String topic;
  public final String bootstrapServers;
  public final String groupId;
  public final long pollTimeoutMs;
  public final long commitIntervalMs;
  /** What a verification that finds the replica different from Postgres does. */
  public final MismatchPolicy verifyMismatch;
  /** Settings for the follower's Kafka clients: {@code kafka.*} without the prefix. */
  public final Map<String, Object> kafkaClientProps;
  /** Every setting as given, for the snapshot store's own keys. */
  public final Map<String, String> originals;

  public FollowerConfig(Map<String, String> props) {
    AbstractConfig c = new AbstractConfig(configDef(), props, false);
    replica = new ReplicaConfig(c);
    topic = c.getString(TOPIC_CONFIG).trim();
    bootstrapServers = c.getString(KAFKA_BOOTSTRAP_CONFIG).trim();
    String n = c.getString(NAME_CONFIG).trim();
    name = n.isEmpty() ? "follower-" + host() + "-" + replica.replicaPath.getFileName() : n;
    String g = c.getString(GROUP_ID_CONFIG).trim();
    groupId = g.isEmpty() ? "pg2lite-follower-" + name : g;
    pollTimeoutMs = c.getLong(POLL_TIMEOUT_CONFIG);
    commitIntervalMs = c.getLong(COMMIT_INTERVAL_CONFIG);
    verifyMismatch = MismatchPolicy.of(c.getString(VERIFY_MISMATCH_CONFIG));
    kafkaClientProps = KafkaClientSettings.clientProps(props);
    originals = Map.copyOf(props);
    for (String reserved : new String[] {"group.id", "isolation.level", "enable.auto.commit"}) {
      if (kafkaClientProps.containsKey(reserved)) {
        throw new ConfigException(KafkaClientSettings.PREFIX + reserved, kafkaClientProps.get(reserved),
            "the follower sets it itself" + (reserved.equals("group.id") ? "; use " + GROUP_ID_CONFIG : ""));
      }
    }
  }

  private static String host() {
    try {
      return InetAddress.getLocalHost().getHostName();
    } catch (UnknownHostException e) {
      return "localhost";
    }
  }
}
