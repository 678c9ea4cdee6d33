package io.pg2lite.protocol.schema;

import java.util.Objects;

/** A schema-qualified upstream name: a table, or an index. Names are kept verbatim, never folded. */
public record QualifiedName(String schema, String name) {
  public QualifiedName {
    Objects.requireNonNull(schema, "schema");
    Objects.requireNonNull(name, "name");
  }

  /** {@code schema.name}, unquoted: for messages and map keys, never for SQL. */
  @Override
  public String toString() {
    return schema + "." + name;
  }
}
