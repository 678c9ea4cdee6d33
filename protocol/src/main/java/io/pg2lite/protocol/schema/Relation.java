package io.pg2lite.protocol.schema;

import java.util.Objects;

/** The table a data change applies to, with the key that identifies its rows. */
public record Relation(String schema, String name, RowKey rowKey) {
  public Relation {
    Objects.requireNonNull(schema, "schema");
    Objects.requireNonNull(name, "name");
    Objects.requireNonNull(rowKey, "rowKey");
  }

  public QualifiedName table() {
    return new QualifiedName(schema, name);
  }
}
