package io.pg2lite.replica.apply;

import io.pg2lite.protocol.message.SchemaChange;
import io.pg2lite.protocol.schema.ColumnSpec;
import io.pg2lite.protocol.schema.Relation;
import io.pg2lite.protocol.schema.RowKey;
import io.pg2lite.protocol.schema.TableMetadata;
import io.pg2lite.protocol.schema.TableSpec;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** Table fixtures for sink tests. */
public final class Tables {
  private Tables() {}

  public static final Relation ITEM = new Relation("public", "item", RowKey.of("id"));

  /** {@code item(id int8 pk, name text, price numeric, ok bool, data bytea, tags text[])}. */
  public static SchemaChange.CreateTable createItem() {
    Map<String, ColumnSpec> cols = new LinkedHashMap<>();
    cols.put("id", ColumnSpec.of(1, "int8"));
    cols.put("name", ColumnSpec.of(2, "text"));
    cols.put("price", ColumnSpec.of(3, "numeric"));
    cols.put("ok", ColumnSpec.of(4, "bool"));
    cols.put("data", ColumnSpec.of(5, "bytea"));
    cols.put("tags", ColumnSpec.of(6, "text[]"));
    return new SchemaChange.CreateTable(new TableSpec("public", "item", cols, List.of("id")),
        new TableMetadata(2200, 1, Map.of("id", 1)), null);
  }
}
