package io.pg2lite.replica.rows;

import io.pg2lite.protocol.message.DataChange;
import io.pg2lite.protocol.schema.Relation;
import io.pg2lite.protocol.value.Row;
import io.pg2lite.protocol.value.Value;
import io.pg2lite.protocol.watermark.Watermark;
import io.pg2lite.replica.changelog.RowChangeLog;
import io.pg2lite.replica.file.Statements;
import io.pg2lite.replica.lite.LiteValues;
import io.pg2lite.replica.lite.SqlNames;
import io.pg2lite.replica.lite.ValueLength;
import io.pg2lite.replica.merge.KeyChange;
import io.pg2lite.replica.schema.LiteTable;
import io.pg2lite.replica.schema.ReplicaSchema;
import io.pg2lite.replica.schema.RowKeys;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.util.Map;
import java.util.Set;

/**
 * Applies the live stream's row changes (reference §6.4): insert = upsert; update writes only the
 * columns present (absent unchanged-TOAST columns keep their values) and becomes an insert when
 * the row is missing; delete by key; truncate empties the table. Every written row gets the
 * transaction's watermark in {@code _0_version}.
 *
 * <p>Each change is told to the {@link RowChangeLog}, which the backfill merge reads, so that a
 * copy from an older snapshot cannot overwrite or bring back what the live stream wrote. Backfill
 * messages are not row changes of this kind: {@link io.pg2lite.replica.merge.BackfillMerge}
 * applies them.
 */
public final class RowWriter {
  private final Statements statements;
  private final ReplicaSchema schema;
  private final RowChangeLog changeLog;
  private final KeyChange keyChange;
  private final UpsertBatch upserts;

  public RowWriter(Statements statements, ReplicaSchema schema, RowChangeLog changeLog, KeyChange keyChange) {
    this.statements = statements;
    this.schema = schema;
    this.changeLog = changeLog;
    this.keyChange = keyChange;
    this.upserts = new UpsertBatch(statements);
  }

  /** Applies an insert, update, delete or truncate at watermark {@code version}. */
  public void apply(DataChange change, Watermark version) throws SQLException {
    if (!(change instanceof DataChange.Insert)) {
      upserts.flush(); // anything but another insert must see the rows inserted before it
    }
    if (change instanceof DataChange.Insert i) {
      insert(i, version);
    } else if (change instanceof DataChange.Update u) {
      update(u, version);
    } else if (change instanceof DataChange.Delete d) {
      delete(d);
    } else if (change instanceof DataChange.Truncate tr) {
      truncate(tr);
    } else {
      throw new IllegalStateException("unhandled data change " + change.tag());
    }
  }

  /** Executes the pending batch of upserts, if any: before anything that must see those rows. */
  public void flush() throws SQLException {
    upserts.flush();
  }

  /** At a rollback: forgets pending inserts. */
  public void discard() {
    upserts.discard();
  }

  /** Before the statements are closed (a schema change): runs pending inserts and forgets their statements. */
  public void schemaChanging() throws SQLException {
    upserts.flush();
    upserts.forgetStatements();
  }

  private void insert(DataChange.Insert i, Watermark version) throws SQLException {
    LiteTable t = schema.requireForRows(i.relation().table());
    checkLengths(t, i.relation(), i.row(), i.row());
    upserts.upsert(t, i.row(), version);
    // A table without a row key takes inserts only (Postgres refuses its updates and deletes
    // when published); its inserts need no key and no change-log entry.
    if (t.hasHiddenColumns() && !(t.rowKey().isEmpty() && i.relation().rowKey().columns().isEmpty())) {
      changeLog.set(t, RowKeys.keyOf(t, i.relation(), i.row()), i.row());
    }
  }

  /**
   * An update writes the columns present in its row at the old key (moving the row when the key
   * changed). A key change onto a row the replica already holds is {@link KeyChange}'s: a copy of
   * a newer snapshot can be there before the live stream replays the move.
   */
  private void update(DataChange.Update u, Watermark version) throws SQLException {
    LiteTable t = schema.requireForRows(u.relation().table());
    Row newKey = RowKeys.keyOf(t, u.relation(), u.row());
    Row oldKey = u.key() == null ? newKey : RowKeys.keyOf(t, u.relation(), u.key());
    if (!oldKey.equals(newKey) && keyChange.ontoExistingRow(t, oldKey, newKey, u.row(), version)) {
      return;
    }
    checkLengths(t, u.relation(), u.row(), u.key() == null ? u.row() : u.key());
    // An unchanged key stays out of SET: SQLite rewrites an index entry whenever SET names an
    // indexed column, even to the same value, so setting it would dirty a page of the key index
    // for every update (half the pages an update writes once the replica outgrows its cache).
    Set<String> unchangedKey = oldKey.equals(newKey) ? newKey.values().keySet() : Set.of();
    StringBuilder set = new StringBuilder();
    for (String col : u.row().values().keySet()) {
      t.storage(col);
      if (!unchangedKey.contains(col)) {
        set.append(SqlNames.quote(col)).append(" = ?, ");
      }
    }
    set.append(SqlNames.quote(ReplicaSchema.ROW_VERSION)).append(" = ?");
    PreparedStatement ps = statements.prepare("UPDATE " + t.sqlName() + " SET " + set + " WHERE "
        + RowKeys.where(oldKey));
    int i = 1;
    for (Map.Entry<String, Value> e : u.row().values().entrySet()) {
      if (!unchangedKey.contains(e.getKey())) {
        LiteValues.bind(ps, i++, e.getValue(), t.storage(e.getKey()));
      }
    }
    ps.setString(i++, version.toString());
    RowKeys.bindKey(ps, i, t, oldKey);
    if (ps.executeUpdate() == 0) {
      upserts.upsert(t, u.row(), version); // a row the replica never saw (resumptive replication)
    }
    if (!oldKey.equals(newKey)) {
      changeLog.delete(t, oldKey);
    }
    changeLog.set(t, newKey, u.row());
  }

  /** Every value of {@code row} fits SQLite ({@link ValueLength}); {@code keyRow} names the row if not. */
  private void checkLengths(LiteTable t, Relation relation, Row row, Row keyRow) throws SQLException {
    long limit = -1;
    long rowBytes = 0;
    for (Map.Entry<String, Value> e : row.values().entrySet()) {
      Value v = e.getValue();
      if (v instanceof Value.Text || v instanceof Value.Array) {
        if (limit < 0) {
          limit = statements.lengthLimit();
        }
        rowBytes += ValueLength.check(v, t.storage(e.getKey()), limit, t.name(), e.getKey(),
            () -> keyText(relation, keyRow));
      }
    }
    if (limit >= 0) {
      ValueLength.checkRow(rowBytes, limit, t.name(), () -> keyText(relation, keyRow));
    }
  }

  /** The row's key columns (its every column when the table has no key), for a message. */
  private static String keyText(Relation relation, Row row) {
    return ValueLength.keyText(relation.rowKey().columns().isEmpty() ? row.values().keySet()
        : relation.rowKey().columns(), row::get);
  }

  private void delete(DataChange.Delete d) throws SQLException {
    LiteTable t = schema.requireForRows(d.relation().table());
    Row key = RowKeys.keyOf(t, d.relation(), d.key());
    PreparedStatement ps = statements.prepare("DELETE FROM " + t.sqlName() + " WHERE "
        + RowKeys.where(key));
    RowKeys.bindKey(ps, 1, t, key);
    ps.executeUpdate();
    changeLog.delete(t, key);
  }

  private void truncate(DataChange.Truncate tr) throws SQLException {
    for (Relation r : tr.relations()) {
      LiteTable t = schema.requireForRows(r.table());
      statements.execute("DELETE FROM " + t.sqlName());
      changeLog.truncate(t);
    }
  }
}
