package io.pg2lite.sink;

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
    return Version.get();
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

  /** Adds a check of the replica path: its directory must exist and be writable. */
  @Override
  public Config validate(Map<String, String> connectorConfigs) {
    Config config = super.validate(connectorConfigs);
    String path = connectorConfigs.get(SinkConfig.REPLICA_PATH_CONFIG);
    if (path != null && !path.isEmpty()) {
      Path dir = Path.of(path).toAbsolutePath().getParent();
      if (dir == null || !Files.isDirectory(dir) || !Files.isWritable(dir)) {
        for (ConfigValue v : config.configValues()) {
          if (v.name().equals(SinkConfig.REPLICA_PATH_CONFIG)) {
            v.addErrorMessage("directory " + dir + " does not exist or is not writable");
          }
        }
      }
    }
    return config;
  }
}
