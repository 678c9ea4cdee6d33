package io.pg2lite.testkit;

import io.pg2lite.testkit.postgres.PostgresServer;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;

/**
 * Connector configs for tests and benches on the test stack, in one place so fixtures and bench
 * commands cannot drift apart. Class names are strings: the test kit does not depend on the
 * connectors.
 */
public final class ConnectorConfigs {
  public static final String SOURCE_CLASS = "io.pg2lite.source.Pg2liteSourceConnector";
  public static final String SINK_CLASS = "io.pg2lite.sink.Pg2liteSinkConnector";
  private static final String BYTES = "org.apache.kafka.connect.converters.ByteArrayConverter";
  /** The source's string headers as their UTF-8 bytes, as the default converter writes them, without its parsing. */
  private static final String STRINGS = "org.apache.kafka.connect.storage.StringConverter";

  private ConnectorConfigs() {}

  /**
   * An exactly-once source on database {@code database} of the stack's Postgres, with slot
   * {@code <prefix>_slot} and publication {@code <prefix>_pub}, writing {@code topic}.
   */
  public static Map<String, String> source(TestStack stack, String name, String database, String prefix,
      String topic) {
    return source(stack.postgres(), stack.kafka().bootstrapServers(), name, database, prefix, topic);
  }

  /** As {@link #source(TestStack, String, String, String, String)}, on a server of the test's own. */
  public static Map<String, String> source(PostgresServer postgres, String bootstrapServers, String name,
      String database, String prefix, String topic) {
    Map<String, String> c = new HashMap<>();
    c.put("name", name);
    c.put("connector.class", SOURCE_CLASS);
    c.put("tasks.max", "1");
    c.put("database.hostname", "localhost");
    c.put("database.port", String.valueOf(postgres.port()));
    c.put("database.dbname", database);
    c.put("database.user", postgres.user());
    c.put("database.password", postgres.password());
    c.put("database.sslmode", "disable");
    c.put("slot.name", prefix + "_slot");
    c.put("publication.name", prefix + "_pub");
    c.put("topic", topic);
    c.put("kafka.bootstrap.servers", bootstrapServers);
    c.put("exactly.once.support", "required");
    c.put("transaction.boundary", "connector");
    c.put("value.converter", BYTES);
    c.put("key.converter", BYTES);
    c.put("header.converter", STRINGS);
    return c;
  }

  /** A sink replaying {@code topic} into {@code replica}, reading committed records only. */
  public static Map<String, String> sink(TestStack stack, String name, String topic, Path replica) {
    return sink(stack.kafka().bootstrapServers(), name, topic, replica);
  }

  /** As {@link #sink(TestStack, String, String, Path)}, on a broker of the test's own. */
  public static Map<String, String> sink(String bootstrapServers, String name, String topic, Path replica) {
    Map<String, String> c = new HashMap<>();
    c.put("name", name);
    c.put("connector.class", SINK_CLASS);
    c.put("topics", topic);
    c.put("replica.path", replica.toString());
    c.put("kafka.bootstrap.servers", bootstrapServers);
    c.put("value.converter", BYTES);
    c.put("key.converter", BYTES);
    c.put("header.converter", BYTES);
    c.put("consumer.override.isolation.level", "read_committed");
    c.put("consumer.override.fetch.max.wait.ms", "5");
    return c;
  }
}
