package io.pg2lite.replica.schema;

import io.pg2lite.protocol.message.SchemaChange;
import io.pg2lite.protocol.schema.BackfillId;
import io.pg2lite.protocol.schema.ColumnSpec;
import io.pg2lite.protocol.schema.IndexSpec;
import io.pg2lite.protocol.schema.QualifiedName;
import io.pg2lite.protocol.schema.SortDirection;
import io.pg2lite.protocol.schema.TableMetadata;
import io.pg2lite.protocol.schema.TableSpec;
import io.pg2lite.replica.lite.LiteTypes;
import io.pg2lite.replica.lite.SqlNames;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Applies schema changes to the replica and keeps the in-memory view of its tables.
 *
 * <p>Layout (as the reference's): one replica table per upstream table, columns in upstream
 * order with {@link LiteTypes declared types}, no NOT NULL and no defaults (the upstream enforced
 * them), plus {@value #ROW_VERSION}, the watermark of the row's last change. Uniqueness comes from
 * a unique index on the row key, which the upserts rely on ({@link RowKeyIndex}). Column and table
 * metadata live in {@code _pg2lite.columns} and {@code _pg2lite.tables}, updated in the same
 * transaction as the DDL ({@link SchemaRows}).
 *
 * <p>Invariant: the view ({@link #table}) is what the file's metadata rows say; a rollback that
 * undid DDL is followed by {@link #reload}.
 */
public final class ReplicaSchema {
  /** The column of every replica table holding the watermark of the row's last change. */
  public static final String ROW_VERSION = io.pg2lite.protocol.schema.ReplicaNames.ROW_VERSION_COLUMN;
  private static final Logger LOG = LoggerFactory.getLogger(ReplicaSchema.class);

  private final Connection c;
  private final Map<String, LiteTable> tables = new HashMap<>();
  private final SqliteCatalog catalog;
  private final SchemaRows rows;
  private final RowKeyIndex keyIndex;
  private final ColumnChanges columns;

  public ReplicaSchema(Connection c) throws SQLException {
    this.c = c;
    this.catalog = new SqliteCatalog(c);
    this.rows = new SchemaRows(c);
    this.keyIndex = new RowKeyIndex(c, catalog, rows);
    this.columns = new ColumnChanges(c, catalog, rows, keyIndex);
    reload();
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
  public LiteTable requireForRows(QualifiedName upstream) {
    LiteTable t = require(upstream);
    RowKeyIndex.check(t);
    return t;
  }

  /** How far the tables are copied, read from the metadata rows ({@link TableCopies}). */
  public TableCopies copies() throws SQLException {
    return rows.copies();
  }

  /** Re-reads the tables from the metadata tables (after a rollback undid DDL). */
  public void reload() throws SQLException {
    Map<String, LiteTable> loaded = rows.load();
    tables.clear();
    tables.putAll(loaded);
  }

  /**
   * Applies one schema change. A table being copied whole is published (renamed from
   * {@link SqlNames#copying} to its own name) in the same SQLite transaction as the change after
   * which none of its columns is hidden any more: normally its {@code backfill-completed}; the
   * completion of a column added during the copy, when that column's copy ran second; or a drop
   * of the last hidden columns. Readers therefore see either no table or the whole table with
   * every column complete, never a part. Only those two changes ever clear a hidden column; the
   * one that clears the last also deletes the table's change-log records, which only the backfill
   * merge reads.
   */
  public void apply(SchemaChange change) throws SQLException {
    applyChange(change);
    QualifiedName unhidden = change instanceof SchemaChange.BackfillCompleted bc ? bc.relation().table()
        : change instanceof SchemaChange.DropColumn d ? d.table() : null;
    LiteTable t = unhidden == null ? null : table(unhidden);
    if (t != null && !t.hasHiddenColumns()) {
      rows.forgetChanges(t.name()); // the merge is over for this table (ReplicaSchema's class comment)
      if (t.isCopying()) {
        publish(t);
      }
    }
  }

  /**
   * Stores a table whose copy is complete under its own name. SQLite's {@code ALTER TABLE RENAME}
   * reads and rewrites the whole schema (about 7 µs per table in the file: 15 ms with 2,000
   * tables), so a copy of up to {@link #MOVE_ROWS} rows is moved instead: the same table created
   * under the new name, its rows inserted, the old one dropped, its indexes created again, which
   * costs a fraction of a millisecond whatever the schema's size (issue 33). A larger table is
   * renamed: moving its rows would cost more.
   */
  private void publish(LiteTable t) throws SQLException {
    LiteTable published = t.published();
    if (!moveSmall(t, published)) {
      exec("ALTER TABLE " + t.sqlName() + " RENAME TO " + published.sqlName());
    }
    rows.published(t.name());
    put(published);
    LOG.info("Copy of table \"{}\" complete: readers see it once this transaction commits", t.name());
  }

  /** The most rows a published copy is moved rather than renamed. */
  static final int MOVE_ROWS = 5_000;

  /** Moves a small copied table to {@code to}'s name (see {@link #publish}); false when it is not small. */
  private boolean moveSmall(LiteTable from, LiteTable to) throws SQLException {
    try (Statement s = c.createStatement();
        ResultSet rs = s.executeQuery("SELECT count(*) FROM (SELECT 1 FROM " + from.sqlName() + " LIMIT "
            + (MOVE_ROWS + 1) + ")")) {
      if (rs.next() && rs.getLong(1) > MOVE_ROWS) {
        return false;
      }
    }
    String table = null;
    List<String> indexes = new ArrayList<>();
    try (PreparedStatement ps = c.prepareStatement("SELECT type, sql FROM sqlite_master WHERE tbl_name = ? "
        + "AND sql IS NOT NULL")) {
      ps.setString(1, from.storedName());
      try (ResultSet rs = ps.executeQuery()) {
        while (rs.next()) {
          if ("table".equals(rs.getString(1))) {
            table = rs.getString(2);
          } else if ("index".equals(rs.getString(1))) {
            indexes.add(rs.getString(2));
          } else {
            return false; // a trigger or a view: not something the sink makes; leave it to RENAME
          }
        }
      }
    }
    String prefix = "CREATE TABLE " + from.sqlName();
    if (table == null || !table.startsWith(prefix)) {
      return false;
    }
    List<String> moved = new ArrayList<>();
    for (String index : indexes) {
      String on = " ON " + from.sqlName() + " ";
      int at = index.indexOf(on);
      if (at < 0 || index.indexOf(on, at + 1) >= 0) {
        return false;
      }
      moved.add(index.substring(0, at) + " ON " + to.sqlName() + " " + index.substring(at + on.length()));
    }
    exec("CREATE TABLE " + to.sqlName() + table.substring(prefix.length()));
    exec("INSERT INTO " + to.sqlName() + " SELECT * FROM " + from.sqlName());
    exec("DROP TABLE " + from.sqlName());
    for (String index : moved) {
      exec(index);
    }
    return true;
  }

  private void applyChange(SchemaChange change) throws SQLException {
    if (change instanceof SchemaChange.CreateTable ct) {
      createTable(ct.spec(), ct.metadata(), ct.backfill());
    } else if (change instanceof SchemaChange.RenameTable r) {
      renameTable(r.old(), r.renamed());
    } else if (change instanceof SchemaChange.UpdateTableMetadata u) {
      put(keyIndex.change(require(u.table()), new ArrayList<>(u.updated().rowKey().keySet())));
      rows.updateMetadata(SqlNames.table(u.table()), u.updated());
    } else if (change instanceof SchemaChange.AddColumn a) {
      LiteTable t = put(columns.add(require(a.table()), a.column().name(), a.column().spec(), a.backfill()));
      if (a.tableMetadata() != null) {
        rows.updateMetadata(SqlNames.table(a.table()), a.tableMetadata());
      }
      keyIndex.createOnceComplete(t);
    } else if (change instanceof SchemaChange.UpdateColumn u) {
      LiteTable t = put(columns.update(require(u.table()), u.old().name(), u.updated().name(), u.updated().spec()));
      keyIndex.createOnceComplete(t);
    } else if (change instanceof SchemaChange.DropColumn d) {
      put(columns.drop(require(d.table()), d.column()));
    } else if (change instanceof SchemaChange.DropTable d) {
      dropTable(d.id());
    } else if (change instanceof SchemaChange.CreateIndex ci) {
      createIndex(ci.spec());
    } else if (change instanceof SchemaChange.DropIndex di) {
      exec("DROP INDEX IF EXISTS " + SqlNames.quote(SqlNames.table(di.id())));
    } else if (change instanceof SchemaChange.BackfillCompleted bc) {
      // The key columns were copied too (a table published with rows has every column hidden).
      List<String> shown = new ArrayList<>(bc.relation().rowKey().columns());
      shown.addAll(bc.columns());
      LiteTable t = put(require(bc.relation().table()).withShown(shown));
      rows.showColumns(t.name(), shown);
    } else {
      throw new IllegalStateException("unhandled schema change " + change.tag());
    }
  }

  private LiteTable put(LiteTable t) {
    tables.put(t.name(), t);
    return t;
  }

  private void createTable(TableSpec spec, TableMetadata metadata, Map<String, BackfillId> backfill)
      throws SQLException {
    String name = SqlNames.table(spec.schema(), spec.name());
    if (tables.containsKey(name)) {
      throw new IllegalArgumentException("create-table of " + spec.qualifiedName() + ": the replica already has "
          + "table \"" + name + "\"");
    }
    // Copied whole: every column waits for the copy (a table published with rows, a first start).
    boolean copying = backfill != null && !spec.columns().isEmpty()
        && backfill.keySet().containsAll(spec.columns().keySet());
    StringBuilder sql = new StringBuilder("CREATE TABLE ")
        .append(SqlNames.quote(copying ? SqlNames.copying(name) : name)).append(" (");
    for (Map.Entry<String, ColumnSpec> col : spec.columns().entrySet()) {
      sql.append(SqlNames.quote(col.getKey())).append(' ').append(SqlNames.quote(LiteTypes.declared(col.getValue())))
          .append(", ");
    }
    sql.append(SqlNames.quote(ROW_VERSION)).append(" TEXT)");
    exec(sql.toString());
    List<String> key = metadata != null ? new ArrayList<>(metadata.rowKey().keySet())
        : spec.primaryKey() != null ? spec.primaryKey() : List.of();
    rows.insertTable(name, spec.qualifiedName(), key, metadata, copying);
    LiteTable t = new LiteTable(name, spec.schema(), spec.name(), key, Map.of(), Set.of(), copying);
    for (Map.Entry<String, ColumnSpec> col : spec.columns().entrySet()) {
      BackfillId id = backfill == null ? null : backfill.get(col.getKey());
      t = columns.describe(t, col.getKey(), col.getValue(), id);
    }
    keyIndex.create(put(t));
  }

  private void renameTable(QualifiedName from, QualifiedName to) throws SQLException {
    LiteTable t = require(from);
    String newName = SqlNames.table(to);
    LiteTable renamed = t.renamed(newName, to.schema(), to.name());
    exec("ALTER TABLE " + t.sqlName() + " RENAME TO " + renamed.sqlName());
    exec("DROP INDEX IF EXISTS " + SqlNames.quote(SqlNames.keyIndex(t.name())));
    rows.renameTable(t.name(), newName, to);
    tables.remove(t.name());
    keyIndex.create(put(renamed));
  }

  private void dropTable(QualifiedName id) throws SQLException {
    String name = SqlNames.table(id);
    LiteTable t = tables.get(name);
    exec("DROP TABLE IF EXISTS " + (t != null ? t.sqlName() : SqlNames.quote(name)));
    rows.dropTable(name);
    tables.remove(name);
  }

  /**
   * A replicated index; like the row-key index, only on columns the table has (no string-literal
   * index). Always a plain index, even when upstream it is unique: the replica mirrors what
   * Postgres enforced, and its intermediate states may repeat a value every committed Postgres
   * state kept unique (a copy from a newer snapshot written beside rows the live stream has not
   * moved yet; a deferrable constraint inside a transaction). Only the row key's index is unique:
   * the upserts rely on it.
   */
  private void createIndex(IndexSpec spec) throws SQLException {
    String table = SqlNames.table(spec.schema(), spec.tableName());
    LiteTable t = require(new QualifiedName(spec.schema(), spec.tableName()));
    StringBuilder cols = new StringBuilder();
    for (Map.Entry<String, SortDirection> e : spec.columns().entrySet()) {
      if (!t.hasColumn(e.getKey())) {
        throw new IllegalArgumentException("create-index " + spec.name() + " on table \"" + table
            + "\" names column \"" + e.getKey() + "\", which the replica table does not have");
      }
      cols.append(cols.length() == 0 ? "" : ", ").append(SqlNames.quote(e.getKey())).append(' ')
          .append(e.getValue().name());
    }
    exec("CREATE INDEX " + SqlNames.quote(SqlNames.table(spec.schema(),
        spec.name())) + " ON " + t.sqlName() + " (" + cols + ")");
  }

  private void exec(String sql) throws SQLException {
    try (Statement s = c.createStatement()) {
      s.execute(sql);
    }
  }
}
