package io.pg2lite.sink.replica;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * What the replica knows of one replicated table: its columns in order with their storage, which
 * columns are still hidden (being backfilled), and its row key.
 */
public final class LiteTable {
  final String name;
  final String upstreamSchema;
  final String upstreamName;
  final Map<String, LiteTypes.Storage> columns = new LinkedHashMap<>();
  final Map<String, String> hidden = new LinkedHashMap<>();
  List<String> rowKey;

  LiteTable(String name, String upstreamSchema, String upstreamName, List<String> rowKey) {
    this.name = name;
    this.upstreamSchema = upstreamSchema;
    this.upstreamName = upstreamName;
    this.rowKey = List.copyOf(rowKey);
  }

  public String name() {
    return name;
  }

  public List<String> rowKey() {
    return rowKey;
  }

  public Map<String, LiteTypes.Storage> columns() {
    return Collections.unmodifiableMap(columns);
  }

  LiteTypes.Storage storage(String column) {
    LiteTypes.Storage s = columns.get(column);
    if (s == null) {
      throw new IllegalArgumentException("table \"" + name + "\" has no column \"" + column + "\"");
    }
    return s;
  }
}
