package io.pg2lite.sink;

import io.pg2lite.connect.PluginVersion;
import io.pg2lite.connect.WorkerVersion;
import io.pg2lite.connect.config.ReplicaConfig;
import io.pg2lite.sink.config.SinkConfig;
import io.pg2lite.snapshot.s3.SnapshotStores;
import io.pg2lite.connect.kafka.ChangeLogAdmin;
import java.util.OptionalInt;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeoutException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.apache.kafka.common.config.Config;
import org.apache.kafka.common.config.ConfigDef;
import org.apache.kafka.common.config.ConfigException;
import org.apache.kafka.common.config.ConfigValue;
import org.apache.kafka.connect.connector.Task;
import org.apache.kafka.connect.sink.SinkConnector;

/**
 * pg2lite's sink connector: replays a change log into one SQLite replica file.
 *
 * <p>Exactly one task: a replica is one file with one writer, and the change log is one ordered
 * partition.
 */
public class Pg2liteSinkConnector extends SinkConnector {
  private Map<String, String> props;

  @Override
  public String version() {
    return PluginVersion.get();
  }

  @Override
  public void start(Map<String, String> props) {
    WorkerVersion.requireSupported(); // a clear refusal, not a NoSuchMethodError later
    new SinkConfig(props);
    this.props = Map.copyOf(props);
  }

  @Override
  public Class<? extends Task> taskClass() {
    return Pg2liteSinkTask.class;
  }

  /** One task whatever {@code tasks.max} says: one replica file, one writer. */
  @Override
  public List<Map<String, String>> taskConfigs(int maxTasks) {
    return List.of(props);
  }

  @Override
  public void stop() {}

  @Override
  public ConfigDef config() {
    return SinkConfig.configDef();
  }

  /**
   * Adds what only the environment can tell, once the fields themselves are valid (live checks on a
   * broken config only add noise), reading the parsed {@link SinkConfig} as the task does: the
   * replica's directory (and the snapshot directory, if set) must exist and be writable, a snapshot
   * bucket must exist and take the credentials, snapshots
   * need {@code kafka.bootstrap.servers} (the config's own rule), and with it each topic must have
   * exactly one partition. A worker older than the supported Connect is refused first
   * ({@link WorkerVersion}).
   */
  @Override
  public Config validate(Map<String, String> connectorConfigs) {
    Config config = super.validate(connectorConfigs);
    if (WorkerVersion.refuseIn(config)) {
      return config; // an unsupported worker: the live checks could hit the API it lacks
    }
    if (!config.configValues().stream().allMatch(v -> v.errorMessages().isEmpty())) {
      return config;
    }
    SinkConfig c;
    try {
      c = new SinkConfig(connectorConfigs);
    } catch (ConfigException e) { // the one rule across fields: snapshots need kafka.bootstrap.servers
      error(config, SinkConfig.SNAPSHOT_DIR_CONFIG, e.getMessage());
      return config;
    }
    Path dir = c.replica.replicaPath.toAbsolutePath().getParent();
    if (dir == null || !Files.isDirectory(dir) || !Files.isWritable(dir)) {
      error(config, SinkConfig.REPLICA_PATH_CONFIG, "directory " + dir + " does not exist or is not writable");
    }
    String bootstrap = c.kafkaBootstrapServers;
    if (c.replica.snapshotDir != null) {
      if (!Files.isDirectory(c.replica.snapshotDir) || !Files.isWritable(c.replica.snapshotDir)) {
        error(config, SinkConfig.SNAPSHOT_DIR_CONFIG, "directory " + c.replica.snapshotDir
            + " does not exist or is not writable");
      }
    }
    if (c.replica.s3.isPresent()) {
      checkBucket(config, c);
    }
    String topics = connectorConfigs.get("topics"); // Connect's own setting, not the connector's
    if (!bootstrap.isEmpty() && topics != null && !topics.isEmpty()) {
      checkTopics(config, bootstrap, c.kafkaClientProps, topics);
    }
    return config;
  }

  /** The bucket must exist and take the credentials; the problem goes on the setting it names. */
  private static void checkBucket(Config config, SinkConfig c) {
    try {
      SnapshotStores.open(c.replica, true).ifPresent(store -> {
        if (store instanceof AutoCloseable closeable) {
          try {
            closeable.close();
          } catch (Exception ignored) {
            // a client only opened to check
          }
        }
      });
    } catch (IllegalArgumentException e) {
      String field = e.getMessage() == null ? ReplicaConfig.S3_BUCKET_CONFIG : e.getMessage().split("[: /]")[0];
      boolean known = config.configValues().stream().anyMatch(v -> v.name().equals(field));
      error(config, known ? field : ReplicaConfig.S3_BUCKET_CONFIG, e.getMessage());
    }
  }

  /** Each topic that exists must have exactly one partition (one that does not exist yet is fine: the source creates it). */
  private static void checkTopics(Config config, String bootstrap, Map<String, Object> clientProps, String topics) {
    ChangeLogAdmin admin = new ChangeLogAdmin(bootstrap, clientProps);
    try {
      for (String topic : topics.split(",")) {
        String t = topic.trim();
        OptionalInt partitions = admin.partitions(t);
        if (partitions.isPresent() && partitions.getAsInt() != 1) {
          error(config, SinkConfig.KAFKA_BOOTSTRAP_CONFIG, "topic " + t + " has " + partitions.getAsInt()
              + " partitions; a change log has exactly one");
        }
      }
    } catch (ExecutionException e) {
      error(config, SinkConfig.KAFKA_BOOTSTRAP_CONFIG, "cannot check topics " + topics + " at " + bootstrap + ": "
          + e.getCause().getMessage());
    } catch (TimeoutException e) {
      error(config, SinkConfig.KAFKA_BOOTSTRAP_CONFIG, "no answer from Kafka at " + bootstrap + " checking topics "
          + topics);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    } catch (RuntimeException e) {
      error(config, SinkConfig.KAFKA_BOOTSTRAP_CONFIG, "cannot reach Kafka at " + bootstrap + ": " + e.getMessage());
    }
  }

  private static void error(Config config, String field, String message) {
    for (ConfigValue v : config.configValues()) {
      if (v.name().equals(field)) {
        v.addErrorMessage(message);
      }
    }
  }
}
