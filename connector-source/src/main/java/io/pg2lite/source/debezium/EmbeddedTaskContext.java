package io.pg2lite.source.debezium;

import java.util.Map;
import org.apache.kafka.common.metrics.PluginMetrics;
import org.apache.kafka.connect.source.SourceTaskContext;
import org.apache.kafka.connect.source.TransactionContext;
import org.apache.kafka.connect.storage.OffsetStorageReader;

/**
 * The context handed to the Debezium task we run inside our own task. It shares our metrics and
 * reads offsets through {@link PrefixedOffsetReader}; it has no transaction context, because
 * Kafka transaction boundaries are ours to define, not Debezium's.
 */
final class EmbeddedTaskContext implements SourceTaskContext {
  private final Map<String, String> configs;
  private final OffsetStorageReader offsets;
  private final SourceTaskContext outer;

  EmbeddedTaskContext(Map<String, String> debeziumConfigs, OffsetStorageReader offsets, SourceTaskContext outer) {
    this.configs = debeziumConfigs;
    this.offsets = offsets;
    this.outer = outer;
  }

  @Override
  public Map<String, String> configs() {
    return configs;
  }

  @Override
  public OffsetStorageReader offsetStorageReader() {
    return offsets;
  }

  @Override
  public TransactionContext transactionContext() {
    return null;
  }

  @Override
  public PluginMetrics pluginMetrics() {
    return outer.pluginMetrics();
  }
}
