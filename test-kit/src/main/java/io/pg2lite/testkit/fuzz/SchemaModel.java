package io.pg2lite.testkit.fuzz;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * What the generator believes the database holds after the actions generated so far: tables,
 * columns, keys, indexes, publication membership and which key values exist. Generating never
 * reads the database, so the same seed always gives the same SQL; the model is exact as long as
 * every generated statement succeeds, which the generator ensures by only generating statements
 * valid in the modelled state.
 *
 * <p>A transaction works on a {@link #copy()}; committing adopts the copy, rolling back drops it,
 * and a savepoint is one more copy.
 */
final class SchemaModel {
  final Map<String, Table> tables = new LinkedHashMap<>();

  SchemaModel copy() {
    SchemaModel m = new SchemaModel();
    tables.forEach((k, v) -> m.tables.put(k, v.copy()));
    return m;
  }

  List<Table> tables(boolean publishedOnly) {
    return tables.values().stream().filter(t -> !publishedOnly || t.published).toList();
  }

  /** A table. Its first key column is always {@code int8}; a second one, if any, {@code int4 NOT NULL}. */
  static final class Table {
    String name;
    final List<Column> columns = new ArrayList<>();
    /** Key column names, in key order: the primary key. */
    List<String> key = new ArrayList<>();
    String keyConstraint;
    boolean published;
    /** Index names and their columns. */
    final Map<String, List<String>> indexes = new LinkedHashMap<>();
    /** Values of the first key column that exist (committed as far as the model knows). */
    final List<Long> ids = new ArrayList<>();

    Table(String name) {
      this.name = name;
    }

    Table copy() {
      Table t = new Table(name);
      columns.forEach(c -> t.columns.add(c.copy()));
      t.key = new ArrayList<>(key);
      t.keyConstraint = keyConstraint;
      t.published = published;
      indexes.forEach((k, v) -> t.indexes.put(k, new ArrayList<>(v)));
      t.ids.addAll(ids);
      return t;
    }

    Column column(String name) {
      return columns.stream().filter(c -> c.name.equals(name)).findFirst().orElseThrow();
    }

    /** Columns that are not part of the key. */
    List<Column> nonKey() {
      return columns.stream().filter(c -> !key.contains(c.name)).toList();
    }

    String idColumn() {
      return key.get(0);
    }
  }

  /** A column; {@code dflt} is the DEFAULT expression or null. */
  static final class Column {
    String name;
    FuzzType type;
    String dflt;
    boolean notNull;

    Column(String name, FuzzType type, String dflt, boolean notNull) {
      this.name = name;
      this.type = type;
      this.dflt = dflt;
      this.notNull = notNull;
    }

    Column copy() {
      return new Column(name, type, dflt, notNull);
    }
  }
}
