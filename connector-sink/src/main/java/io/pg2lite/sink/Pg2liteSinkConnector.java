package io.pg2lite.sink;

import io.pg2lite.connect.PluginVersion;
import io.pg2lite.sink.config.SinkConfig;
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
   * Adds what only the environment can tell: the replica's directory must exist and be writable,
   * and (with {@code kafka.bootstrap.servers}) each topic must exist with exactly one partition.
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
    String topics = connectorConfigs.get("topics");
    if (bootstrap != null && !bootstrap.isEmpty() && topics != null && !topics.isEmpty()) {
      Map<String, Object> p = new java.util.HashMap<>();
      connectorConfigs.forEach((k, v) -> {
        if (k.startsWith("kafka.") && !k.equals(SinkConfig.KAFKA_BOOTSTRAP_CONFIG)) {
          p.put(k.substring("kafka.".length()), v);
        }
      });
      p.put("bootstrap.servers", bootstrap);
      p.putIfAbsent("default.api.timeout.ms", "15000");
      p.putIfAbsent("request.timeout.ms", "10000");
      try (org.apache.kafka.clients.admin.Admin admin = org.apache.kafka.clients.admin.Admin.create(p)) {
        for (String topic : topics.split(",")) {
          String t = topic.trim();
          int partitions;
          try {
            partitions = admin.describeTopics(List.of(t)).allTopicNames().get().get(t).partitions().size();
          } catch (java.util.concurrent.ExecutionException e) {
            if (e.getCause() instanceof org.apache.kafka.common.errors.UnknownTopicOrPartitionException) {
              continue; // not created yet: the source creates it on its first start, the sink waits for it
            }
            throw e;
          }
          if (partitions != 1) {
            error(config, SinkConfig.KAFKA_BOOTSTRAP_CONFIG, "topic " + t + " has " + partitions
                + " partitions; a change log has exactly one");
          }
        }
      } catch (java.util.concurrent.ExecutionException e) {
        error(config, SinkConfig.KAFKA_BOOTSTRAP_CONFIG, "cannot check topics " + topics + " at " + bootstrap + ": "
            + e.getCause().getMessage());
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
