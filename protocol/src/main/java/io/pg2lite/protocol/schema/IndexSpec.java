package io.pg2lite.protocol.schema;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;

/** A published index. {@code columns} is in index column order. */
public record IndexSpec(String schema, String tableName, String name, boolean unique, Map<String, SortDirection> columns) {
  public IndexSpec {
    Objects.requireNonNull(schema, "schema");
    Objects.requireNonNull(tableName, "tableName");
    Objects.requireNonNull(name, "name");
    columns = Collections.unmodifiableMap(new LinkedHashMap<>(columns));
  }
}
