package io.pg2lite.sink;

import io.pg2lite.connect.PluginVersion;
import io.pg2lite.sink.config.SinkConfig;
import io.pg2lite.sink.kafka.ChangeLogAdmin;
import java.util.OptionalInt;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeoutException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.apache.kafka.common.config.Config;
import org.apache.kafka.common.config.ConfigDef;
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
   * Adds what only the environment can tell: the replica's directory (and the snapshot directory,
   * if set) must exist and be writable, and (with {@code kafka.bootstrap.servers}) each topic must exist with exactly one partition.
   */
  @Override
  public Config validate(Map<String, String> connectorConfigs) {
    Config config = super.validate(connectorConfigs);
    String path = connectorConfigs.get(SinkConfig.REPLICA_PATH_CONFIG);
    if (path != null && !path.isEmpty()) {
      Path dir = Path.of(path).toAbsolutePath().getParent();
      if (dir == null || !Files.isDirectory(dir) || !Files.isWritable(dir)) {
        error(config, SinkConfig.REPLICA_PATH_CONFIG, "directory " + dir + " does not exist or is not writable");
      }
    }
    String bootstrap = connectorConfigs.get(SinkConfig.KAFKA_BOOTSTRAP_CONFIG);
    String snapshots = connectorConfigs.getOrDefault(SinkConfig.SNAPSHOT_DIR_CONFIG, "").trim();
    if (!snapshots.isEmpty()) {
      if (!Files.isDirectory(Path.of(snapshots)) || !Files.isWritable(Path.of(snapshots))) {
        error(config, SinkConfig.SNAPSHOT_DIR_CONFIG, "directory " + snapshots + " does not exist or is not writable");
      }
      if (bootstrap == null || bootstrap.isEmpty()) {
        error(config, SinkConfig.SNAPSHOT_DIR_CONFIG, "snapshots need " + SinkConfig.KAFKA_BOOTSTRAP_CONFIG
            + ": a restore checks that the topic still holds what follows a snapshot");
      }
    }
    String topics = connectorConfigs.get("topics");
    if (bootstrap != null && !bootstrap.isEmpty() && topics != null && !topics.isEmpty()) {
      ChangeLogAdmin admin = new ChangeLogAdmin(bootstrap, SinkConfig.kafkaClientProps(connectorConfigs));
      try {
        for (String topic : topics.split(",")) {
          String t = topic.trim();
          // A topic that does not exist yet is fine: the source creates it, the sink waits for it.
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
    return config;
  }

  private static void error(Config config, String field, String message) {
    for (ConfigValue v : config.configValues()) {
      if (v.name().equals(field)) {
        v.addErrorMessage(message);
      }
    }
  }
}
