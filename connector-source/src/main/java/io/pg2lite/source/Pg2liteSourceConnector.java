package io.pg2lite.source;

import io.pg2lite.connect.PluginVersion;
import io.pg2lite.connect.WorkerVersion;
import io.pg2lite.source.config.SourceConfig;
import io.pg2lite.source.config.SourceValidator;
import io.pg2lite.source.kafka.ChangeLogProbe;
import io.pg2lite.source.kafka.TransactionTimeouts;
import io.pg2lite.source.postgres.PostgresProbe;
import java.util.List;
import java.util.Map;
import org.apache.kafka.common.config.Config;
import org.apache.kafka.common.config.ConfigDef;
import org.apache.kafka.common.config.ConfigException;
import org.apache.kafka.common.config.ConfigValue;
import org.apache.kafka.connect.connector.Task;
import org.apache.kafka.connect.source.ConnectorTransactionBoundaries;
import org.apache.kafka.connect.source.ExactlyOnceSupport;
import org.apache.kafka.connect.source.SourceConnector;

/**
 * pg2lite's source connector: Postgres logical replication to one ordered change-log topic.
 *
 * <p>Exactly one task: one replication slot is one ordered stream, and the change log's total
 * order exists only if one writer produces it.
 */
public class Pg2liteSourceConnector extends SourceConnector {
  private Map<String, String> props;

  @Override
  public String version() {
    return PluginVersion.get();
  }

  @Override
  public void start(Map<String, String> props) {
    WorkerVersion.requireSupported(); // a clear refusal, not a NoSuchMethodError later
    TransactionTimeouts.problem(props).ifPresent(problem -> {
      throw new ConfigException(problem);
    });
    new SourceConfig(props); // fail fast on a bad config
    this.props = Map.copyOf(props);
  }

  @Override
  public Class<? extends Task> taskClass() {
    return Pg2liteSourceTask.class;
  }

  /** One task whatever {@code tasks.max} says: one slot, one ordered stream. */
  @Override
  public List<Map<String, String>> taskConfigs(int maxTasks) {
    return List.of(props);
  }

  @Override
  public void stop() {}

  @Override
  public ConfigDef config() {
    return SourceConfig.configDef();
  }

  /**
   * Field-level checks, then, once the fields are valid, what only the live database and broker
   * can tell ({@link PostgresProbe}, {@link ChangeLogProbe}), each problem on its field. A worker
   * older than the supported Connect is refused first ({@link WorkerVersion}).
   */
  @Override
  public Config validate(Map<String, String> connectorConfigs) {
    Config config = super.validate(connectorConfigs);
    if (WorkerVersion.refuseIn(config)) {
      return config; // an unsupported worker: the live checks could hit the API it lacks
    }
    TransactionTimeouts.problem(connectorConfigs).ifPresent(problem -> {
      ConfigValue v = new ConfigValue(TransactionTimeouts.TRANSACTION_TIMEOUT);
      v.value(connectorConfigs.get(TransactionTimeouts.TRANSACTION_TIMEOUT));
      v.addErrorMessage(problem);
      config.configValues().add(v);
    });
    SourceValidator validator = new SourceValidator(config);
    if (validator.fieldsValid()) {
      SourceConfig c = new SourceConfig(connectorConfigs);
      validator.report(new PostgresProbe(c).problems());
      validator.report(new ChangeLogProbe(c).problems());
    }
    return config;
  }

  @Override
  public ExactlyOnceSupport exactlyOnceSupport(Map<String, String> connectorConfig) {
    return ExactlyOnceSupport.SUPPORTED;
  }

  @Override
  public ConnectorTransactionBoundaries canDefineTransactionBoundaries(Map<String, String> connectorConfig) {
    return ConnectorTransactionBoundaries.SUPPORTED;
  }
}
