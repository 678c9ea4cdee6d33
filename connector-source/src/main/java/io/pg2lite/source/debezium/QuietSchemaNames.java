package io.pg2lite.source.debezium;

import io.debezium.relational.TableId;
import io.debezium.schema.AbstractTopicNamingStrategy;
import java.util.Properties;

/**
 * Names for the Connect schemas Debezium builds per table ({@code <prefix>.<schema>.<table>}),
 * made valid without a word. Debezium's own naming logs a warning for every table whose name
 * holds a character a Kafka topic cannot (a space, a non-ASCII letter), each time the table is
 * described: for a table name Postgres accepts, on a healthy pipeline (issue 30). pg2lite writes
 * no topic by these names and never shows them: they only name the row structs that
 * {@link DecodedMessageMapper} reads by field, so a name only has to be valid.
 */
final class QuietSchemaNames extends AbstractTopicNamingStrategy<TableId> {
  /** Kafka's longest topic name. */
  private static final int MAX_LENGTH = 249;

  QuietSchemaNames(Properties config) {
    super(config);
  }

  @Override
  public String dataChangeTopic(TableId id) {
    return topicNames.computeIfAbsent(id, t -> sanitizedTopicName(prefix + delimiter + t.schema() + delimiter + t.table()));
  }

  @Override
  public String sanitizedTopicName(String name) {
    StringBuilder sb = new StringBuilder(Math.min(name.length(), MAX_LENGTH));
    for (int i = 0; i < name.length() && sb.length() < MAX_LENGTH; i++) {
      char c = name.charAt(i);
      boolean valid = c == '.' || c == '_' || c == '-' || (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z')
          || (c >= '0' && c <= '9');
      sb.append(valid ? c : '_');
    }
    return sb.toString();
  }
}
