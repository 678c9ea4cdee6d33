package io.pg2lite.replica.schema;

import io.pg2lite.protocol.schema.BackfillId;
import io.pg2lite.protocol.schema.ColumnSpec;
import io.pg2lite.protocol.schema.QualifiedName;
import io.pg2lite.protocol.schema.TableMetadata;
import io.pg2lite.protocol.stored.ReplicaStorage;
import io.pg2lite.replica.file.MetadataTables;
import io.pg2lite.replica.lite.Json;
import io.pg2lite.replica.lite.SqlNames;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The schema's rows in {@link MetadataTables#TABLES} and {@link MetadataTables#COLUMNS}.
 *
 * <p>Invariant: they are written in the same SQLite transaction as the DDL they describe, so
 * {@link #load} after a rollback gives exactly the tables the file holds; the in-memory view is
 * only ever a copy of these rows.
 */
final class SchemaRows {
  private final Connection c;

  SchemaRows(Connection c) {
    this.c = c;
  }

  /** Every replicated table, by replica name. */
  Map<String, LiteTable> load() throws SQLException {
    record Head(String schema, String name, List<String> key, boolean copying) {}
    Map<String, Head> heads = new LinkedHashMap<>();
    try (Statement s = c.createStatement();
        ResultSet rs = s.executeQuery("SELECT table_name, upstream_schema, upstream_name, row_key, copying FROM "
            + SqlNames.quote(MetadataTables.TABLES))) {
      while (rs.next()) {
        heads.put(rs.getString(1), new Head(rs.getString(2), rs.getString(3), Json.stringList(rs.getString(4)),
            rs.getInt(5) != 0));
      }
    }
    Map<String, Map<String, ReplicaStorage>> columns = new HashMap<>();
    Map<String, Set<String>> hidden = new HashMap<>();
    try (Statement s = c.createStatement();
        ResultSet rs = s.executeQuery("SELECT table_name, column_name, storage, backfill FROM "
            + SqlNames.quote(MetadataTables.COLUMNS) + " ORDER BY table_name, pos")) {
      while (rs.next()) {
        String table = rs.getString(1);
        if (heads.containsKey(table)) {
          columns.computeIfAbsent(table, k -> new LinkedHashMap<>())
              .put(rs.getString(2), ReplicaStorage.valueOf(rs.getString(3)));
          if (rs.getString(4) != null) {
            hidden.computeIfAbsent(table, k -> new LinkedHashSet<>()).add(rs.getString(2));
          }
        }
      }
    }
    Map<String, LiteTable> out = new HashMap<>();
    heads.forEach((name, h) -> out.put(name, new LiteTable(name, h.schema, h.name, h.key,
        columns.getOrDefault(name, Map.of()), hidden.getOrDefault(name, Set.of()), h.copying)));
    return out;
  }

  /**
   * The tables, and those whose copy is not complete: stored as a copy ({@code copying}), or with a
   * column still flagged for backfill. Reads the committed rows when no transaction is open.
   */
  TableCopies copies() throws SQLException {
    try (Statement s = c.createStatement(); ResultSet rs = s.executeQuery("SELECT (SELECT count(*) FROM "
        + SqlNames.quote(MetadataTables.TABLES) + "), (SELECT count(*) FROM " + SqlNames.quote(MetadataTables.TABLES)
        + " t WHERE t.copying <> 0 OR EXISTS (SELECT 1 FROM " + SqlNames.quote(MetadataTables.COLUMNS)
        + " c WHERE c.table_name = t.table_name AND c.backfill IS NOT NULL))")) {
      rs.next();
      return new TableCopies(rs.getInt(1), rs.getInt(2));
    }
  }

  void insertTable(String table, QualifiedName upstream, List<String> key, TableMetadata metadata, boolean copying)
      throws SQLException {
    try (PreparedStatement ps = c.prepareStatement("INSERT INTO " + SqlNames.quote(MetadataTables.TABLES)
        + " (table_name, upstream_schema, upstream_name, row_key, upstream_metadata, copying)"
        + " VALUES (?, ?, ?, ?, ?, ?)")) {
      ps.setString(1, table);
      ps.setString(2, upstream.schema());
      ps.setString(3, upstream.name());
      ps.setString(4, Json.stringList(key));
      ps.setString(5, metadata == null ? null : Json.metadata(metadata));
      ps.setInt(6, copying ? 1 : 0);
      ps.executeUpdate();
    }
  }

  /** The table's copy is complete: it is stored under its own name from now on. */
  void published(String table) throws SQLException {
    try (PreparedStatement ps = c.prepareStatement("UPDATE " + SqlNames.quote(MetadataTables.TABLES)
        + " SET copying = 0 WHERE table_name = ?")) {
      ps.setString(1, table);
      ps.executeUpdate();
    }
  }

  /** Writes (or replaces) a column's row; {@code backfill} non-null while its values are being copied. */
  void putColumn(String table, String column, ColumnSpec spec, ReplicaStorage storage, BackfillId backfill)
      throws SQLException {
    try (PreparedStatement ps = c.prepareStatement("INSERT OR REPLACE INTO " + SqlNames.quote(MetadataTables.COLUMNS)
        + " (table_name, column_name, pos, upstream_type, storage, is_not_null, character_max_length, backfill)"
        + " VALUES (?, ?, ?, ?, ?, ?, ?, ?)")) {
      ps.setString(1, table);
      ps.setString(2, column);
      ps.setInt(3, spec.pos());
      ps.setString(4, spec.dataType());
      ps.setString(5, storage.name());
      ps.setObject(6, spec.notNull() == null ? null : spec.notNull() ? 1 : 0);
      ps.setObject(7, spec.characterMaximumLength());
      ps.setString(8, backfill == null ? null : "{\"attNum\":" + backfill.attNum() + "}");
      ps.executeUpdate();
    }
  }

  void deleteColumn(String table, String column) throws SQLException {
    try (PreparedStatement ps = c.prepareStatement("DELETE FROM " + SqlNames.quote(MetadataTables.COLUMNS)
        + " WHERE table_name = ? AND column_name = ?")) {
      ps.setString(1, table);
      ps.setString(2, column);
      ps.executeUpdate();
    }
  }

  /** The columns' backfill is complete: they are shown. */
  void showColumns(String table, List<String> columns) throws SQLException {
    try (PreparedStatement ps = c.prepareStatement("UPDATE " + SqlNames.quote(MetadataTables.COLUMNS)
        + " SET backfill = NULL WHERE table_name = ? AND column_name = ?")) {
      for (String col : columns) {
        ps.setString(1, table);
        ps.setString(2, col);
        ps.executeUpdate();
      }
    }
  }

  void updateMetadata(String table, TableMetadata metadata) throws SQLException {
    try (PreparedStatement ps = c.prepareStatement("UPDATE " + SqlNames.quote(MetadataTables.TABLES)
        + " SET upstream_metadata = ? WHERE table_name = ?")) {
      ps.setString(1, Json.metadata(metadata));
      ps.setString(2, table);
      ps.executeUpdate();
    }
  }

  void storeRowKey(String table, List<String> key) throws SQLException {
    try (PreparedStatement ps = c.prepareStatement("UPDATE " + SqlNames.quote(MetadataTables.TABLES)
        + " SET row_key = ? WHERE table_name = ?")) {
      ps.setString(1, Json.stringList(key));
      ps.setString(2, table);
      ps.executeUpdate();
    }
  }

  /** Moves every metadata row of {@code from}, the change log's records too, to {@code to}. */
  void renameTable(String from, String to, QualifiedName upstream) throws SQLException {
    for (String meta : List.of(MetadataTables.TABLES, MetadataTables.COLUMNS, MetadataTables.CHANGES)) {
      try (PreparedStatement ps = c.prepareStatement("UPDATE " + SqlNames.quote(meta)
          + " SET table_name = ? WHERE table_name = ?")) {
        ps.setString(1, to);
        ps.setString(2, from);
        ps.executeUpdate();
      }
    }
    try (PreparedStatement ps = c.prepareStatement("UPDATE " + SqlNames.quote(MetadataTables.TABLES)
        + " SET upstream_schema = ?, upstream_name = ? WHERE table_name = ?")) {
      ps.setString(1, upstream.schema());
      ps.setString(2, upstream.name());
      ps.setString(3, to);
      ps.executeUpdate();
    }
  }

  /**
   * Deletes the change log's records of {@code table}: once none of its columns is hidden, no
   * backfill merge reads them, and a later backfill records afresh from its own start (a table
   * without hidden columns records nothing). Left in place they would grow with every row the
   * live stream wrote during the copy and never shrink.
   */
  void forgetChanges(String table) throws SQLException {
    try (PreparedStatement ps = c.prepareStatement("DELETE FROM " + SqlNames.quote(MetadataTables.CHANGES)
        + " WHERE table_name = ?")) {
      ps.setString(1, table);
      ps.executeUpdate();
    }
  }

  /** Deletes every metadata row of {@code table}, the change log's records too. */
  void dropTable(String table) throws SQLException {
    for (String meta : List.of(MetadataTables.TABLES, MetadataTables.COLUMNS, MetadataTables.CHANGES)) {
      try (PreparedStatement ps = c.prepareStatement("DELETE FROM " + SqlNames.quote(meta) + " WHERE table_name = ?")) {
        ps.setString(1, table);
        ps.executeUpdate();
      }
    }
  }
}
