package io.pg2lite.sink.replica;

import io.pg2lite.protocol.message.SchemaChange;
import io.pg2lite.protocol.schema.BackfillId;
import io.pg2lite.protocol.schema.ColumnSpec;
import io.pg2lite.protocol.schema.IndexSpec;
import io.pg2lite.protocol.schema.QualifiedName;
import io.pg2lite.protocol.schema.SortDirection;
import io.pg2lite.protocol.schema.TableMetadata;
import io.pg2lite.protocol.schema.TableSpec;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Applies schema changes to the replica and keeps the in-memory view of its tables.
 *
 * <p>Layout (as the reference's): one replica table per upstream table, columns in upstream
 * order with {@link LiteTypes declared types}, no NOT NULL and no defaults (the upstream enforced
 * them), plus {@code _0_version}, the watermark of the row's last change. Uniqueness comes from
 * a unique index on the row key, which the upserts rely on. Column and table metadata live in
 * {@code _pg2lite.columns} and {@code _pg2lite.tables}, updated in the same transaction as the DDL.
 */
public final class ReplicaSchema {
  public static final String ROW_VERSION = "_0_version";

  private final Connection c;
  private final Map<String, LiteTable> tables = new HashMap<>();
  private final SqliteCatalog catalog;
  private final RowKeyIndex keyIndex;

  ReplicaSchema(Connection c) throws SQLException {
    this.c = c;
    this.catalog = new SqliteCatalog(c);
    this.keyIndex = new RowKeyIndex(c, catalog);
    load();
  }

  /** The replica table for an upstream table, or null when it is not replicated. */
  public LiteTable table(QualifiedName upstream) {
    return tables.get(SqlNames.table(upstream));
  }

  public LiteTable require(QualifiedName upstream) {
    LiteTable t = table(upstream);
    if (t == null) {
      throw new IllegalArgumentException("change for table " + upstream + ", which the replica does not have");
    }
    return t;
  }

  /** The table a row change writes: {@link #require}, with a row key whose columns all exist. */
  LiteTable requireForRows(QualifiedName upstream) {
    LiteTable t = require(upstream);
    RowKeyIndex.check(t);
    return t;
  }

  /** Re-reads the tables from the metadata tables (after a rollback undid DDL). */
  void reload() throws SQLException {
    load();
  }

  private void load() throws SQLException {
    tables.clear();
    try (Statement s = c.createStatement();
        ResultSet rs = s.executeQuery("SELECT table_name, upstream_schema, upstream_name, row_key FROM "
            + SqlNames.quote(ReplicaFile.TABLES))) {
      while (rs.next()) {
        tables.put(rs.getString(1), new LiteTable(rs.getString(1), rs.getString(2), rs.getString(3),
            Json.stringList(rs.getString(4))));
      }
    }
    try (Statement s = c.createStatement();
        ResultSet rs = s.executeQuery("SELECT table_name, column_name, storage, backfill FROM "
            + SqlNames.quote(ReplicaFile.COLUMNS) + " ORDER BY table_name, pos")) {
      while (rs.next()) {
        LiteTable t = tables.get(rs.getString(1));
        if (t != null) {
          t.columns.put(rs.getString(2), LiteTypes.Storage.valueOf(rs.getString(3)));
          if (rs.getString(4) != null) {
            t.hidden.put(rs.getString(2), rs.getString(4));
          }
        }
      }
    }
  }

  void apply(SchemaChange change) throws SQLException {
    if (change instanceof SchemaChange.CreateTable ct) {
      createTable(ct.spec(), ct.metadata(), ct.backfill());
    } else if (change instanceof SchemaChange.RenameTable r) {
      renameTable(r.old(), r.renamed());
    } else if (change instanceof SchemaChange.UpdateTableMetadata u) {
      keyIndex.change(require(u.table()), new ArrayList<>(u.updated().rowKey().keySet()));
      updateMetadata(u.table(), u.updated());
    } else if (change instanceof SchemaChange.AddColumn a) {
      LiteTable t = require(a.table());
      addColumn(t, a.column().name(), a.column().spec(), a.backfill());
      if (a.tableMetadata() != null) {
        updateMetadata(a.table(), a.tableMetadata());
      }
      keyIndex.createOnceComplete(t);
    } else if (change instanceof SchemaChange.UpdateColumn u) {
      LiteTable t = require(u.table());
      updateColumn(t, u.old().name(), u.updated().name(), u.updated().spec());
      keyIndex.createOnceComplete(t);
    } else if (change instanceof SchemaChange.DropColumn d) {
      dropColumn(require(d.table()), d.column());
    } else if (change instanceof SchemaChange.DropTable d) {
      dropTable(d.id());
    } else if (change instanceof SchemaChange.CreateIndex ci) {
      createIndex(ci.spec());
    } else if (change instanceof SchemaChange.DropIndex di) {
      exec("DROP INDEX IF EXISTS " + SqlNames.quote(SqlNames.table(di.id())));
    } else if (change instanceof SchemaChange.BackfillCompleted bc) {
      LiteTable t = require(bc.relation().table());
      for (String col : bc.columns()) {
        t.hidden.remove(col);
      }
      for (String col : bc.relation().rowKey().columns()) {
        t.hidden.remove(col);
      }
      try (PreparedStatement ps = c.prepareStatement("UPDATE " + SqlNames.quote(ReplicaFile.COLUMNS)
          + " SET backfill = NULL WHERE table_name = ? AND column_name = ?")) {
        for (String col : concat(bc.relation().rowKey().columns(), bc.columns())) {
          ps.setString(1, t.name);
          ps.setString(2, col);
          ps.executeUpdate();
        }
      }
    } else {
      throw new IllegalStateException("unhandled schema change " + change.tag());
    }
  }

  private void createTable(TableSpec spec, TableMetadata metadata, Map<String, BackfillId> backfill)
      throws SQLException {
    String name = SqlNames.table(spec.schema(), spec.name());
    if (tables.containsKey(name)) {
      throw new IllegalArgumentException("create-table of " + spec.qualifiedName() + ": the replica already has "
          + "table \"" + name + "\"");
    }
    StringBuilder sql = new StringBuilder("CREATE TABLE ").append(SqlNames.quote(name)).append(" (");
    for (Map.Entry<String, ColumnSpec> col : spec.columns().entrySet()) {
      sql.append(SqlNames.quote(col.getKey())).append(' ').append(SqlNames.quote(LiteTypes.declared(col.getValue())))
          .append(", ");
    }
    sql.append(SqlNames.quote(ROW_VERSION)).append(" TEXT)");
    exec(sql.toString());
    List<String> key = metadata != null ? new ArrayList<>(metadata.rowKey().keySet())
        : spec.primaryKey() != null ? spec.primaryKey() : List.of();
    LiteTable t = new LiteTable(name, spec.schema(), spec.name(), key);
    try (PreparedStatement ps = c.prepareStatement("INSERT INTO " + SqlNames.quote(ReplicaFile.TABLES)
        + " (table_name, upstream_schema, upstream_name, row_key, upstream_metadata) VALUES (?, ?, ?, ?, ?)")) {
      ps.setString(1, name);
      ps.setString(2, spec.schema());
      ps.setString(3, spec.name());
      ps.setString(4, Json.stringList(key));
      ps.setString(5, metadata == null ? null : Json.metadata(metadata));
      ps.executeUpdate();
    }
    tables.put(name, t);
    for (Map.Entry<String, ColumnSpec> col : spec.columns().entrySet()) {
      BackfillId id = backfill == null ? null : backfill.get(col.getKey());
      insertColumnMetadata(t, col.getKey(), col.getValue(), id);
    }
    keyIndex.create(t);
  }

  private void insertColumnMetadata(LiteTable t, String column, ColumnSpec spec, BackfillId backfill)
      throws SQLException {
    LiteTypes.Storage storage = LiteTypes.storage(spec);
    try (PreparedStatement ps = c.prepareStatement("INSERT OR REPLACE INTO " + SqlNames.quote(ReplicaFile.COLUMNS)
        + " (table_name, column_name, pos, upstream_type, storage, is_not_null, character_max_length, backfill)"
        + " VALUES (?, ?, ?, ?, ?, ?, ?, ?)")) {
      ps.setString(1, t.name);
      ps.setString(2, column);
      ps.setInt(3, spec.pos());
      ps.setString(4, spec.dataType());
      ps.setString(5, storage.name());
      ps.setObject(6, spec.notNull() == null ? null : spec.notNull() ? 1 : 0);
      ps.setObject(7, spec.characterMaximumLength());
      ps.setString(8, backfill == null ? null : "{\"attNum\":" + backfill.attNum() + "}");
      ps.executeUpdate();
    }
    t.columns.put(column, storage);
    if (backfill != null) {
      t.hidden.put(column, "{\"attNum\":" + backfill.attNum() + "}");
    } else {
      t.hidden.remove(column);
    }
  }

  private void updateMetadata(QualifiedName table, TableMetadata metadata) throws SQLException {
    try (PreparedStatement ps = c.prepareStatement("UPDATE " + SqlNames.quote(ReplicaFile.TABLES)
        + " SET upstream_metadata = ? WHERE table_name = ?")) {
      ps.setString(1, Json.metadata(metadata));
      ps.setString(2, SqlNames.table(table));
      ps.executeUpdate();
    }
  }

  private void renameTable(QualifiedName from, QualifiedName to) throws SQLException {
    LiteTable t = require(from);
    String newName = SqlNames.table(to);
    exec("ALTER TABLE " + SqlNames.quote(t.name) + " RENAME TO " + SqlNames.quote(newName));
    exec("DROP INDEX IF EXISTS " + SqlNames.quote(SqlNames.keyIndex(t.name)));
    for (String meta : List.of(ReplicaFile.TABLES, ReplicaFile.COLUMNS, ReplicaFile.CHANGES)) {
      try (PreparedStatement ps = c.prepareStatement("UPDATE " + SqlNames.quote(meta)
          + " SET table_name = ? WHERE table_name = ?")) {
        ps.setString(1, newName);
        ps.setString(2, t.name);
        ps.executeUpdate();
      }
    }
    try (PreparedStatement ps = c.prepareStatement("UPDATE " + SqlNames.quote(ReplicaFile.TABLES)
        + " SET upstream_schema = ?, upstream_name = ? WHERE table_name = ?")) {
      ps.setString(1, to.schema());
      ps.setString(2, to.name());
      ps.setString(3, newName);
      ps.executeUpdate();
    }
    tables.remove(t.name);
    LiteTable renamed = new LiteTable(newName, to.schema(), to.name(), t.rowKey);
    renamed.columns.putAll(t.columns);
    renamed.hidden.putAll(t.hidden);
    tables.put(newName, renamed);
    keyIndex.create(renamed);
  }

  private void addColumn(LiteTable t, String column, ColumnSpec spec, BackfillId backfill) throws SQLException {
    String dflt = backfill == null ? SqliteDefault.of(column, spec) : null;
    exec("ALTER TABLE " + SqlNames.quote(t.name) + " ADD COLUMN " + SqlNames.quote(column) + " "
        + SqlNames.quote(LiteTypes.declared(spec)) + (dflt == null ? "" : " DEFAULT " + dflt));
    insertColumnMetadata(t, column, spec, backfill);
  }

  /**
   * A rename is an ALTER TABLE RENAME COLUMN. A retype keeps the data and the indexes: SQLite
   * cannot change a column's declared type, so the values move to a new column of the new type
   * and the indexes on the column are re-created on it.
   */
  private void updateColumn(LiteTable t, String oldName, String newName, ColumnSpec spec) throws SQLException {
    String oldDeclared = catalog.declaredType(t.name, oldName);
    String target = oldName;
    if (!LiteTypes.declared(spec).equals(oldDeclared)) {
      List<String> indexSql = catalog.indexesOn(t.name, oldName);
      for (String idx : catalog.indexNamesOn(t.name, oldName)) {
        exec("DROP INDEX " + SqlNames.quote(idx));
      }
      String tmp = "tmp." + newName;
      exec("ALTER TABLE " + SqlNames.quote(t.name) + " ADD COLUMN " + SqlNames.quote(tmp) + " "
          + SqlNames.quote(LiteTypes.declared(spec)));
      exec("UPDATE " + SqlNames.quote(t.name) + " SET " + SqlNames.quote(tmp) + " = " + SqlNames.quote(oldName));
      exec("ALTER TABLE " + SqlNames.quote(t.name) + " DROP COLUMN " + SqlNames.quote(oldName));
      exec("ALTER TABLE " + SqlNames.quote(t.name) + " RENAME COLUMN " + SqlNames.quote(tmp) + " TO "
          + SqlNames.quote(oldName));
      for (String sql : indexSql) {
        exec(sql);
      }
    }
    if (!newName.equals(target)) {
      exec("ALTER TABLE " + SqlNames.quote(t.name) + " RENAME COLUMN " + SqlNames.quote(oldName) + " TO "
          + SqlNames.quote(newName));
    }
    String hidden = t.hidden.get(oldName);
    try (PreparedStatement ps = c.prepareStatement("DELETE FROM " + SqlNames.quote(ReplicaFile.COLUMNS)
        + " WHERE table_name = ? AND column_name = ?")) {
      ps.setString(1, t.name);
      ps.setString(2, oldName);
      ps.executeUpdate();
    }
    Map<String, LiteTypes.Storage> reordered = new java.util.LinkedHashMap<>();
    t.columns.forEach((k, v) -> reordered.put(k.equals(oldName) ? newName : k, v));
    t.columns.clear();
    t.columns.putAll(reordered);
    t.hidden.remove(oldName);
    insertColumnMetadata(t, newName, spec, hidden == null ? null : new BackfillId(spec.pos()));
    keyIndex.columnRenamed(t, oldName, newName);
  }

  private void dropColumn(LiteTable t, String column) throws SQLException {
    for (String idx : catalog.indexNamesOn(t.name, column)) {
      exec("DROP INDEX " + SqlNames.quote(idx));
    }
    exec("ALTER TABLE " + SqlNames.quote(t.name) + " DROP COLUMN " + SqlNames.quote(column));
    try (PreparedStatement ps = c.prepareStatement("DELETE FROM " + SqlNames.quote(ReplicaFile.COLUMNS)
        + " WHERE table_name = ? AND column_name = ?")) {
      ps.setString(1, t.name);
      ps.setString(2, column);
      ps.executeUpdate();
    }
    t.columns.remove(column);
    t.hidden.remove(column);
  }

  private void dropTable(QualifiedName id) throws SQLException {
    String name = SqlNames.table(id);
    exec("DROP TABLE IF EXISTS " + SqlNames.quote(name));
    for (String meta : List.of(ReplicaFile.TABLES, ReplicaFile.COLUMNS, ReplicaFile.CHANGES)) {
      try (PreparedStatement ps = c.prepareStatement("DELETE FROM " + SqlNames.quote(meta) + " WHERE table_name = ?")) {
        ps.setString(1, name);
        ps.executeUpdate();
      }
    }
    tables.remove(name);
  }

  /** A replicated index; like the row-key index, only on columns the table has (no string-literal index). */
  private void createIndex(IndexSpec spec) throws SQLException {
    String table = SqlNames.table(spec.schema(), spec.tableName());
    LiteTable t = require(new QualifiedName(spec.schema(), spec.tableName()));
    StringBuilder cols = new StringBuilder();
    for (Map.Entry<String, SortDirection> e : spec.columns().entrySet()) {
      if (!t.columns.containsKey(e.getKey())) {
        throw new IllegalArgumentException("create-index " + spec.name() + " on table \"" + table
            + "\" names column \"" + e.getKey() + "\", which the replica table does not have");
      }
      cols.append(cols.length() == 0 ? "" : ", ").append(SqlNames.quote(e.getKey())).append(' ')
          .append(e.getValue().name());
    }
    exec("CREATE " + (spec.unique() ? "UNIQUE " : "") + "INDEX " + SqlNames.quote(SqlNames.table(spec.schema(),
        spec.name())) + " ON " + SqlNames.quote(table) + " (" + cols + ")");
  }

  private static List<String> concat(List<String> a, List<String> b) {
    List<String> out = new ArrayList<>(a);
    out.addAll(b);
    return out;
  }

  private void exec(String sql) throws SQLException {
    try (Statement s = c.createStatement()) {
      s.execute(sql);
    }
  }
}
