package io.debezium.connector.postgresql;

import io.debezium.config.CommonConnectorConfig;
import io.debezium.config.Configuration;
import io.debezium.connector.postgresql.connection.PostgresConnection;
import io.debezium.relational.CustomConverterRegistry;
import java.util.List;

/**
 * Spike only (test scope): the one place pg2lite code sits in Debezium's package, to reach the
 * protected constructors of {@link PostgresTaskContext} and {@link PostgresSchema} that
 * Debezium's lower layer (the pgoutput decoder) needs. Nothing is copied: it calls those
 * constructors the way {@code PostgresConnectorTask#start} does, with no custom converters.
 */
public final class LowerLayerAccess {
  private LowerLayerAccess() {}

  /**
   * The schema the pgoutput decoder fills from Relation messages and reads tables from. Its
   * {@code defaultValueConverter} comes from {@code jdbc} (a connection built with a type
   * registry and value converter builder).
   */
  @SuppressWarnings("unchecked")
  public static PostgresSchema schema(Configuration raw, PostgresConnectorConfig config, PostgresConnection jdbc) {
    PostgresTaskContext context = new PostgresTaskContext(raw, config);
    PostgresValueConverter values = PostgresValueConverter.of(config, jdbc.getDatabaseCharset(), jdbc.getTypeRegistry());
    return new PostgresSchema(context, jdbc.getDefaultValueConverter(),
        config.getTopicNamingStrategy(CommonConnectorConfig.TOPIC_NAMING_STRATEGY), values,
        new CustomConverterRegistry(List.of()));
  }
}
