package io.pg2lite.sink.replica;

import io.pg2lite.protocol.message.DataChange;
import io.pg2lite.protocol.schema.Relation;
import io.pg2lite.protocol.schema.ReplicaIdentity;
import io.pg2lite.protocol.value.Row;
import io.pg2lite.protocol.value.Value;
import io.pg2lite.protocol.watermark.Watermark;
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
 * Applies row changes (reference §6.4): insert = upsert; update writes only the columns present
 * (absent unchanged-TOAST columns keep their values) and becomes an insert when the row is
 * missing; delete by key; truncate empties the table. Every written row gets the transaction's
 * watermark in {@code _0_version}.
 *
 * <p>Backfill merge rule, for tables with hidden (backfilling) columns: the replica records per
 * row the last operation and, per hidden column, the watermark of the last change that wrote it
 * ({@code _pg2lite.changes}). A backfilled value is written only where no change newer than the
 * backfill's snapshot wrote that column, and never into a row deleted after the snapshot nor into
 * a table truncated after it: a backfill must never overwrite newer data or resurrect deleted rows.
 * The other way round, a key change older than a copy that already wrote its new key merges into
 * the copied row ({@link KeyChange}, ADR 0007).
 */
public final class RowWriter {
  private final Connection c;
  private final ReplicaSchema schema;
  private final Map<String, PreparedStatement> statements = new HashMap<>();
  private final RowChangeLog changeLog;
  private final KeyChange keyChange;

  RowWriter(Connection c, ReplicaSchema schema) {
    this.c = c;
    this.schema = schema;
    this.changeLog = new RowChangeLog(this::statement);
    this.keyChange = new KeyChange(this::statement, changeLog);
  }

  /** Statements are prepared against the current schema; any DDL invalidates them. */
  /** At an upstream commit: runs pending inserts, then records row operations at {@code commit}. */
  void commitChanges(Watermark commit) throws SQLException {
    flushBatch();
    changeLog.commit(commit);
  }

  /** At a rollback: forgets pending inserts and row operations. */
  void discardChanges() {
    changeLog.discard();
    if (batching != null) {
      try {
        batching.ps.clearBatch();
      } catch (SQLException ignored) {
        // the statement is being discarded with the transaction anyway
      }
      batching = null;
      batched = 0;
    }
  }

  void schemaChanged() throws SQLException {
    flushBatch();
    for (PreparedStatement ps : statements.values()) {
      ps.close();
    }
    statements.clear();
    upserts.clear();
  }

  void apply(DataChange change, Watermark version) throws SQLException {
    if (!(change instanceof DataChange.Insert)) {
      flushBatch(); // anything but another insert must see the rows inserted before it
    }
    if (change instanceof DataChange.Insert i) {
      LiteTable t = schema.requireForRows(i.relation().table());
      upsert(t, i.row(), version);
      // A table without a row key takes inserts only (Postgres refuses its updates and deletes
      // when published); its inserts need no key and no change-log entry.
      if (!t.hidden.isEmpty() && !(t.rowKey.isEmpty() && i.relation().rowKey().columns().isEmpty())) {
        changeLog.set(t, keyOf(t, i.relation(), i.row()), i.row(), version);
      }
    } else if (change instanceof DataChange.Update u) {
      update(u, version);
    } else if (change instanceof DataChange.Delete d) {
      LiteTable t = schema.requireForRows(d.relation().table());
      Row key = keyOf(t, d.relation(), d.key());
      PreparedStatement ps = statement("DELETE FROM " + SqlNames.quote(t.name) + " WHERE " + where(key));
      bindKey(ps, 1, t, key);
      ps.executeUpdate();
      changeLog.delete(t, key, version);
    } else if (change instanceof DataChange.Truncate tr) {
      for (Relation r : tr.relations()) {
        LiteTable t = schema.requireForRows(r.table());
        try (Statement s = c.createStatement()) {
          s.execute("DELETE FROM " + SqlNames.quote(t.name));
        }
        changeLog.truncate(t);
      }
    } else if (change instanceof DataChange.Backfill b) {
      backfill(b);
    } else {
      throw new IllegalStateException("unhandled data change " + change.tag());
    }
  }

  /**
   * An update writes the columns present in its row at the old key (moving the row when the key
   * changed). A key change onto a row the replica already holds is {@link KeyChange}'s: a copy of
   * a newer snapshot can be there before the live stream replays the move.
   */
  private void update(DataChange.Update u, Watermark version) throws SQLException {
    LiteTable t = schema.requireForRows(u.relation().table());
    Row newKey = keyOf(t, u.relation(), u.row());
    Row oldKey = u.key() == null ? newKey : keyOf(t, u.relation(), u.key());
    if (!oldKey.equals(newKey) && keyChange.ontoExistingRow(t, oldKey, newKey, u.row(), version)) {
      return;
    }
    StringBuilder set = new StringBuilder();
    for (String col : u.row().values().keySet()) {
      t.storage(col);
      set.append(SqlNames.quote(col)).append(" = ?, ");
    }
    set.append(SqlNames.quote(ReplicaSchema.ROW_VERSION)).append(" = ?");
    PreparedStatement ps = statement("UPDATE " + SqlNames.quote(t.name) + " SET " + set + " WHERE " + where(oldKey));
    int i = 1;
    for (Map.Entry<String, Value> e : u.row().values().entrySet()) {
      LiteValues.bind(ps, i++, e.getValue(), t.storage(e.getKey()));
    }
    ps.setString(i++, version.toString());
    bindKey(ps, i, t, oldKey);
    if (ps.executeUpdate() == 0) {
      upsert(t, u.row(), version); // a row the replica never saw (resumptive replication)
    }
    if (!oldKey.equals(newKey)) {
      changeLog.delete(t, oldKey, version);
    }
    changeLog.set(t, newKey, u.row(), version);
  }

  /** The last upsert prepared per table, reused while rows come with the same columns (the common case). */
  private record Upsert(List<String> columns, List<LiteTypes.Storage> storage, PreparedStatement ps) {}

  private final Map<String, Upsert> upserts = new HashMap<>();

  /**
   * Consecutive upserts into one table with the same columns are sent to SQLite as one JDBC
   * batch: one native call instead of one per row. Order is kept because any other statement,
   * and every upstream commit, first executes the pending batch ({@link #flushBatch}); a rollback
   * discards it. A batch never spans two upstream transactions.
   */
  private static final int MAX_BATCH = 1000;
  private Upsert batching;
  private int batched;

  private void upsert(LiteTable t, Row row, Watermark version) throws SQLException {
    Upsert u = upserts.get(t.name);
    if (u == null || !u.columns.equals(new ArrayList<>(row.values().keySet()))) {
      flushBatch();
      u = prepareUpsert(t, new ArrayList<>(row.values().keySet()));
      upserts.put(t.name, u);
    } else if (batching != null && batching != u) {
      flushBatch();
    }
    int i = 1;
    for (Value v : row.values().values()) {
      LiteValues.bind(u.ps, i, v, u.storage.get(i - 1));
      i++;
    }
    u.ps.setString(i, version.toString());
    u.ps.addBatch();
    batching = u;
    if (++batched >= MAX_BATCH) {
      flushBatch();
    }
  }

  /** Executes the pending batch of upserts, if any. */
  void flushBatch() throws SQLException {
    if (batching != null) {
      Upsert u = batching;
      batching = null;
      batched = 0;
      u.ps.executeBatch();
    }
  }

  private Upsert prepareUpsert(LiteTable t, List<String> columns) throws SQLException {
    StringBuilder cols = new StringBuilder();
    StringBuilder marks = new StringBuilder();
    List<LiteTypes.Storage> storage = new ArrayList<>();
    for (String col : columns) {
      storage.add(t.storage(col));
      cols.append(SqlNames.quote(col)).append(", ");
      marks.append("?, ");
    }
    cols.append(SqlNames.quote(ReplicaSchema.ROW_VERSION));
    marks.append('?');
    return new Upsert(List.copyOf(columns), List.copyOf(storage), statement("INSERT OR REPLACE INTO "
        + SqlNames.quote(t.name) + " (" + cols + ") VALUES (" + marks + ")"));
  }

  /**
   * Applies copied rows by the merge rule. Rows whose merge needs the same statement (the same
   * columns to overwrite; usually all of them) go to SQLite as one JDBC batch: a backfill message
   * holds distinct keys, and the change log it consults is not written by it, so batching cannot
   * change what a later row of the message sees.
   */
  private void backfill(DataChange.Backfill b) throws SQLException {
    LiteTable t = schema.requireForRows(b.relation().table());
    List<String> keyCols = b.relation().rowKey().columns();
    if (keyCols.isEmpty() && !b.rowValues().isEmpty()) {
      throw new IllegalArgumentException("backfill of " + t.name + " without a row key");
    }
    List<String> cols = new ArrayList<>(keyCols);
    cols.addAll(b.columns());
    List<LiteTypes.Storage> storage = new ArrayList<>(cols.size());
    for (String col : cols) {
      storage.add(t.storage(col));
    }
    String snapshot = b.watermark().toString();
    List<String> rowKeys = rowKeys(t, b.rowValues(), keyCols, cols.size());
    List<String> lookup = new ArrayList<>(rowKeys);
    lookup.add(RowChangeLog.TRUNCATED);
    Map<String, RowChangeLog.LastChange> lastChanges = changeLog.last(t, lookup);
    RowChangeLog.LastChange truncated = lastChanges.get(RowChangeLog.TRUNCATED);
    if (truncated != null && truncated.version().compareTo(snapshot) > 0) {
      return; // the table was emptied after the snapshot: none of its rows exist any more
    }
    PreparedStatement ps = null;
    boolean[] psMask = null;
    int pending = 0;
    for (int r = 0; r < b.rowValues().size(); r++) {
      List<Value> values = b.rowValues().get(r);
      RowChangeLog.LastChange last = lastChanges.get(rowKeys.get(r));
      if (last != null && last.op().equals("d") && last.version().compareTo(snapshot) > 0) {
        continue; // deleted after the snapshot: never resurrect it
      }
      boolean[] mask = overwritable(last, cols, keyCols.size(), snapshot);
      if (mask == null) {
        continue; // every column was written by a newer change
      }
      if (ps == null || !java.util.Arrays.equals(mask, psMask)) {
        if (pending > 0) {
          ps.executeBatch();
          pending = 0;
        }
        ps = statement(backfillSql(t, cols, keyCols.size(), mask));
        psMask = mask;
      }
      for (int k = 0; k < cols.size(); k++) {
        LiteValues.bind(ps, k + 1, values.get(k), storage.get(k));
      }
      ps.setString(cols.size() + 1, snapshot);
      ps.addBatch();
      if (++pending >= MAX_BATCH) {
        ps.executeBatch();
        pending = 0;
      }
    }
    if (pending > 0) {
      ps.executeBatch();
    }
  }

  /** Each row's key as the change log spells it; also checks each row's width. */
  private static List<String> rowKeys(LiteTable t, List<List<Value>> rows, List<String> keyCols, int width) {
    List<String> out = new ArrayList<>(rows.size());
    for (List<Value> values : rows) {
      if (values.size() != width) {
        throw new IllegalArgumentException("backfill row of " + t.name + " has " + values.size() + " values for "
            + width + " columns");
      }
      Row.Builder kb = Row.builder();
      for (int k = 0; k < keyCols.size(); k++) {
        kb.put(keyCols.get(k), values.get(k));
      }
      out.add(rowKeyText(kb.build()));
    }
    return out;
  }

  /**
   * Which copied columns the merge may write for a row whose last change is {@code last}: those no
   * change newer than the snapshot wrote. Null when the row exists and every column is newer.
   */
  private static boolean[] overwritable(RowChangeLog.LastChange last, List<String> cols, int keyCount,
      String snapshot) {
    boolean set = last != null && last.op().equals("s");
    boolean[] mask = new boolean[cols.size()];
    boolean any = false;
    for (int k = keyCount; k < cols.size(); k++) {
      String v = set ? last.columnVersions().get(cols.get(k)) : null;
      if (v == null || v.compareTo(snapshot) <= 0) {
        mask[k] = true;
        any = true;
      }
    }
    return any || !set ? mask : null;
  }

  /** INSERT ... ON CONFLICT (key) DO UPDATE SET the columns in {@code overwrite} (or DO NOTHING). */
  private static String backfillSql(LiteTable t, List<String> cols, int keyCount, boolean[] overwrite) {
    StringBuilder sql = new StringBuilder("INSERT INTO ").append(SqlNames.quote(t.name)).append(" (");
    for (String col : cols) {
      sql.append(SqlNames.quote(col)).append(", ");
    }
    sql.append(SqlNames.quote(ReplicaSchema.ROW_VERSION)).append(") VALUES (").append("?, ".repeat(cols.size()))
        .append("?) ON CONFLICT (");
    for (int k = 0; k < keyCount; k++) {
      sql.append(k == 0 ? "" : ", ").append(SqlNames.quote(cols.get(k)));
    }
    sql.append(") DO ");
    boolean first = true;
    for (int k = keyCount; k < cols.size(); k++) {
      if (overwrite[k]) {
        String col = SqlNames.quote(cols.get(k));
        sql.append(first ? "UPDATE SET " : ", ").append(col).append(" = excluded.").append(col);
        first = false;
      }
    }
    if (first) {
      sql.append("NOTHING");
    }
    return sql.toString();
  }

  /** The key columns of a row: the relation's, or the replica's own key under REPLICA IDENTITY FULL. */
  private static Row keyOf(LiteTable t, Relation relation, Row row) {
    List<String> cols = relation.rowKey().type() == ReplicaIdentity.FULL || relation.rowKey().columns().isEmpty()
        ? t.rowKey : relation.rowKey().columns();
    if (cols.isEmpty()) {
      throw new IllegalArgumentException("cannot replicate a change of table " + t.name + ": it has no row key "
          + "(primary key or unique index)");
    }
    Row.Builder b = Row.builder();
    for (String col : cols) {
      Value v = row.get(col);
      if (v == null) {
        throw new IllegalArgumentException("change of table " + t.name + " lacks key column \"" + col + "\"");
      }
      b.put(col, v);
    }
    return b.build();
  }

  /** {@code "k1" IS ? AND "k2" IS ?} for the columns of {@code key}. */
  static String where(Row key) {
    StringBuilder sb = new StringBuilder();
    for (String col : key.values().keySet()) {
      sb.append(sb.length() == 0 ? "" : " AND ").append(SqlNames.quote(col)).append(" IS ?");
    }
    return sb.toString();
  }

  /** Binds the values of {@code key} from parameter {@code from} on; returns the next parameter index. */
  static int bindKey(PreparedStatement ps, int from, LiteTable t, Row key) throws SQLException {
    int i = from;
    for (Map.Entry<String, Value> e : key.values().entrySet()) {
      LiteValues.bind(ps, i++, e.getValue(), t.storage(e.getKey()));
    }
    return i;
  }

  /** A canonical text of a row key: its values as a JSON array in key order. */
  static String rowKeyText(Row key) {
    return LiteValues.arrayJson(new Value.Array(new ArrayList<>(key.values().values())));
  }

  PreparedStatement statement(String sql) throws SQLException {
    PreparedStatement ps = statements.get(sql);
    if (ps == null) {
      ps = c.prepareStatement(sql);
      statements.put(sql, ps);
    }
    return ps;
  }
}
