package io.pg2lite.replica.schema;

import io.pg2lite.protocol.schema.BackfillId;
import io.pg2lite.protocol.schema.ColumnSpec;
import io.pg2lite.protocol.stored.ReplicaStorage;
import io.pg2lite.replica.lite.LiteTypes;
import io.pg2lite.replica.lite.SqlNames;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.List;

/**
 * Column DDL on a replica table: add, rename or retype, drop. Each returns the table as it is
 * afterwards; the caller swaps it in.
 *
 * <p>SQLite adds columns only at the end and cannot change a declared type, so a retype (from a
 * log written before ADR 0008) moves the values to a new column of the new type and re-creates
 * the indexes on it; an added column with a backfill starts hidden and NULL.
 */
final class ColumnChanges {
  private final Connection c;
  private final SqliteCatalog catalog;
  private final SchemaRows rows;
  private final RowKeyIndex keyIndex;

  ColumnChanges(Connection c, SqliteCatalog catalog, SchemaRows rows, RowKeyIndex keyIndex) {
    this.c = c;
    this.catalog = catalog;
    this.rows = rows;
    this.keyIndex = keyIndex;
  }

  /**
   * An added column; a constant default (only without a backfill) gives existing rows their
   * value, in the live stream's storage form ({@link SqliteDefault}).
   */
  LiteTable add(LiteTable t, String column, ColumnSpec spec, BackfillId backfill) throws SQLException {
    String dflt = backfill == null ? SqliteDefault.of(column, spec) : null;
    exec("ALTER TABLE " + t.sqlName() + " ADD COLUMN " + SqlNames.quote(column) + " "
        + SqlNames.quote(LiteTypes.declared(spec)) + (dflt == null ? "" : " DEFAULT " + dflt));
    return describe(t, column, spec, backfill);
  }

  /** Writes a column's metadata row and returns the table holding it. */
  LiteTable describe(LiteTable t, String column, ColumnSpec spec, BackfillId backfill) throws SQLException {
    ReplicaStorage storage = ReplicaStorage.of(spec);
    rows.putColumn(t.name(), column, spec, storage, backfill);
    return t.withColumn(column, storage, backfill != null);
  }

  /**
   * A rename is an ALTER TABLE RENAME COLUMN. A retype keeps the data and the indexes: SQLite
   * cannot change a column's declared type, so the values move to a new column of the new type
   * and the indexes on the column are re-created on it.
   */
  LiteTable update(LiteTable t, String oldName, String newName, ColumnSpec spec) throws SQLException {
    String oldDeclared = catalog.declaredType(t.storedName(), oldName);
    if (!LiteTypes.declared(spec).equals(oldDeclared)) {
      retype(t, oldName, newName, spec);
    }
    if (!newName.equals(oldName)) {
      exec("ALTER TABLE " + t.sqlName() + " RENAME COLUMN " + SqlNames.quote(oldName) + " TO "
          + SqlNames.quote(newName));
    }
    boolean hidden = t.isHidden(oldName);
    rows.deleteColumn(t.name(), oldName);
    LiteTable renamed = describe(t.withColumnRenamed(oldName, newName), newName, spec,
        hidden ? new BackfillId(spec.pos()) : null);
    return keyIndex.columnRenamed(renamed, oldName, newName);
  }

  /** Moves {@code column}'s values to a column of the new type, by way of {@code tmp.<newName>}. */
  private void retype(LiteTable t, String column, String newName, ColumnSpec spec) throws SQLException {
    List<String> indexSql = catalog.indexesOn(t.storedName(), column);
    for (String idx : catalog.indexNamesOn(t.storedName(), column)) {
      exec("DROP INDEX " + SqlNames.quote(idx));
    }
    String tmp = "tmp." + newName;
    exec("ALTER TABLE " + t.sqlName() + " ADD COLUMN " + SqlNames.quote(tmp) + " "
        + SqlNames.quote(LiteTypes.declared(spec)));
    exec("UPDATE " + t.sqlName() + " SET " + SqlNames.quote(tmp) + " = " + SqlNames.quote(column));
    exec("ALTER TABLE " + t.sqlName() + " DROP COLUMN " + SqlNames.quote(column));
    exec("ALTER TABLE " + t.sqlName() + " RENAME COLUMN " + SqlNames.quote(tmp) + " TO "
        + SqlNames.quote(column));
    for (String sql : indexSql) {
      exec(sql);
    }
  }

  /** A dropped column, with the indexes on it (SQLite refuses to drop an indexed column). */
  LiteTable drop(LiteTable t, String column) throws SQLException {
    for (String idx : catalog.indexNamesOn(t.storedName(), column)) {
      exec("DROP INDEX " + SqlNames.quote(idx));
    }
    exec("ALTER TABLE " + t.sqlName() + " DROP COLUMN " + SqlNames.quote(column));
    rows.deleteColumn(t.name(), column);
    return t.withoutColumn(column);
  }

  private void exec(String sql) throws SQLException {
    try (Statement s = c.createStatement()) {
      s.execute(sql);
    }
  }
}
