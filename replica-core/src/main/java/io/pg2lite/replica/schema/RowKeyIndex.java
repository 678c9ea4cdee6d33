package io.pg2lite.replica.schema;

import io.pg2lite.replica.lite.SqlNames;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.List;

/**
 * The unique index on a replica table's row key, which the upserts rely on, and the stored key
 * ({@code _pg2lite.tables.row_key}) it follows.
 *
 * <p>Ordering rule: within one DDL command the source sends a new key (update-table-metadata)
 * <em>before</em> the column changes that complete it (the reference's order), so the new key may
 * name a column still to be added ({@code ADD COLUMN k ..., ADD PRIMARY KEY (id, k)}) or still
 * under its old name ({@code RENAME COLUMN id TO id2}). The old index goes at once; the new one is
 * built as soon as every key column exists ({@link #createOnceComplete}, called after each column
 * change), which is before any row of the table is written again, since row changes never come
 * between the schema changes of one command. {@link #check} refuses a row change otherwise.
 *
 * <p>Every key column must exist when the index is built: SQLite reads a double-quoted name it
 * does not know as a string literal, would index that constant, and then refuse the second row
 * (or key every row alike).
 */
final class RowKeyIndex {
  private final Connection c;
  private final SqliteCatalog catalog;
  private final SchemaRows rows;

  RowKeyIndex(Connection c, SqliteCatalog catalog, SchemaRows rows) {
    this.c = c;
    this.catalog = catalog;
    this.rows = rows;
  }

  /** Builds the index of a table whose key columns all exist (a new or renamed table). */
  void create(LiteTable t) throws SQLException {
    if (t.rowKey().isEmpty()) {
      return;
    }
    List<String> missing = missingColumns(t);
    if (!missing.isEmpty()) {
      throw new IllegalArgumentException("table \"" + t.name() + "\": row key " + t.rowKey() + " names column(s) "
          + missing + " that the replica table does not have");
    }
    StringBuilder cols = new StringBuilder();
    for (String k : t.rowKey()) {
      cols.append(cols.length() == 0 ? "" : ", ").append(SqlNames.quote(k));
    }
    exec("CREATE UNIQUE INDEX " + SqlNames.quote(SqlNames.keyIndex(t.name())) + " ON " + t.sqlName()
        + " (" + cols + ")");
  }

  /**
   * A new row key (update-table-metadata): the old index goes, the new one follows (see the class
   * doc). Returns the table with the new key.
   */
  LiteTable change(LiteTable t, List<String> key) throws SQLException {
    if (key.equals(t.rowKey())) {
      return t;
    }
    for (String k : key) {
      if (t.isHidden(k) && hasNull(t, k)) {
        // Rows merge by key, and this column's values are still being copied: the rows that
        // have none yet would all be keyed by NULL and each copied row become a second one. A
        // column of a table being copied whole is complete in every row the replica holds (the
        // live stream writes whole rows); one added with a backfill is NULL in the older rows.
        // The source re-copies a table whose new key includes a column still being copied (added
        // by the same command or an earlier one), so only a log that breaks that rule gets here
        // (docs/sink-connector.md).
        throw new IllegalArgumentException("table \"" + t.name() + "\": the new row key " + key + " includes column \""
            + k + "\", which is still being backfilled and NULL in rows of the replica; the replica cannot key "
            + "rows on it (resync the replica)");
      }
    }
    exec("DROP INDEX IF EXISTS " + SqlNames.quote(SqlNames.keyIndex(t.name())));
    LiteTable rekeyed = t.withRowKey(key);
    rows.storeRowKey(rekeyed.name(), rekeyed.rowKey());
    createOnceComplete(rekeyed);
    return rekeyed;
  }

  /**
   * A column renamed: the key follows the rename (SQLite's RENAME COLUMN already moved the index).
   * Returns the table with the key renamed.
   */
  LiteTable columnRenamed(LiteTable t, String oldName, String newName) throws SQLException {
    if (newName.equals(oldName) || !t.rowKey().contains(oldName)) {
      return t;
    }
    LiteTable renamed = t.withRowKey(t.rowKey().stream().map(k -> k.equals(oldName) ? newName : k).toList());
    rows.storeRowKey(renamed.name(), renamed.rowKey());
    return renamed;
  }

  /** Builds the index if every key column exists and the index does not yet. */
  void createOnceComplete(LiteTable t) throws SQLException {
    if (!t.rowKey().isEmpty() && missingColumns(t).isEmpty() && !catalog.hasIndex(SqlNames.keyIndex(t.name()))) {
      create(t);
    }
  }

  /**
   * Refuses a row change for a table whose row key names a column it does not have: a log whose
   * key change was not followed by the column changes that complete it. Writing rows without
   * the key index would break the upserts' uniqueness.
   */
  static void check(LiteTable t) {
    List<String> missing = missingColumns(t);
    if (!missing.isEmpty()) {
      throw new IllegalArgumentException("row change for table \"" + t.name() + "\", whose row key " + t.rowKey()
          + " names column(s) " + missing + " that no schema change has added");
    }
  }

  private static List<String> missingColumns(LiteTable t) {
    return t.rowKey().stream().filter(k -> !t.hasColumn(k)).toList();
  }

  private boolean hasNull(LiteTable t, String column) throws SQLException {
    try (Statement s = c.createStatement(); ResultSet rs = s.executeQuery("SELECT 1 FROM " + t.sqlName()
        + " WHERE " + SqlNames.quote(column) + " IS NULL LIMIT 1")) {
      return rs.next();
    }
  }

  private void exec(String sql) throws SQLException {
    try (Statement s = c.createStatement()) {
      s.execute(sql);
    }
  }
}
