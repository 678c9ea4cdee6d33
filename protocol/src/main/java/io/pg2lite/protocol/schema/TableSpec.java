package io.pg2lite.protocol.schema;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * A published table: name, columns in attnum order, primary key (null when it has none).
 * Column order is kept: the replica creates columns in this order.
 */
public record TableSpec(String schema, String name, Map<String, ColumnSpec> columns, List<String> primaryKey) {
  public TableSpec {
    Objects.requireNonNull(schema, "schema");
    Objects.requireNonNull(name, "name");
    columns = Collections.unmodifiableMap(new LinkedHashMap<>(columns));
    primaryKey = primaryKey == null ? null : List.copyOf(primaryKey);
  }

  public QualifiedName qualifiedName() {
    return new QualifiedName(schema, name);
  }
}
