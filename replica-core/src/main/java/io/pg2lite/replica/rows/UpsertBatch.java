package io.pg2lite.replica.rows;

import io.pg2lite.protocol.stored.ReplicaStorage;
import io.pg2lite.protocol.value.Row;
import io.pg2lite.protocol.value.Value;
import io.pg2lite.protocol.watermark.Watermark;
import io.pg2lite.replica.file.Statements;
import io.pg2lite.replica.lite.LiteValues;
import io.pg2lite.replica.lite.SqlNames;
import io.pg2lite.replica.schema.LiteTable;
import io.pg2lite.replica.schema.ReplicaSchema;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Upserts ({@code INSERT OR REPLACE}), with consecutive upserts into one table with the same
 * columns sent to SQLite as one JDBC batch: one native call instead of one per row.
 *
 * <p>Ordering rule: a batched row is not in the table until {@link #flush}. So any other
 * statement, every upstream commit, every schema change and every backfill first flushes the
 * pending batch (the callers do); a rollback {@link #discard}s it. A batch never spans two
 * upstream transactions, and a later statement always sees the rows inserted before it.
 */
final class UpsertBatch {
  private static final int MAX_BATCH = 1000;

  /** The last upsert prepared per table, reused while rows come with the same columns (the common case). */
  private record Upsert(List<String> columns, List<ReplicaStorage> storage, PreparedStatement ps) {}

  private final Statements statements;
  private final Map<String, Upsert> upserts = new HashMap<>();
  private Upsert batching;
  private int batched;

  UpsertBatch(Statements statements) {
    this.statements = statements;
  }

  /** Adds an upsert of {@code row} at {@code version} to the batch (flushing first if it is another statement's). */
  void upsert(LiteTable t, Row row, Watermark version) throws SQLException {
    Upsert u = upserts.get(t.name());
    if (u == null || !u.columns.equals(new ArrayList<>(row.values().keySet()))) {
      flush();
      u = prepare(t, new ArrayList<>(row.values().keySet()));
      upserts.put(t.name(), u);
    } else if (batching != null && batching != u) {
      flush();
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
      flush();
    }
  }

  /** Executes the pending batch, if any. */
  void flush() throws SQLException {
    if (batching != null) {
      Upsert u = batching;
      batching = null;
      batched = 0;
      u.ps.executeBatch();
    }
  }

  /** Forgets the pending batch (the transaction is being rolled back). */
  void discard() {
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

  /** Forgets the prepared upserts: the statements they hold are about to be closed. */
  void forgetStatements() {
    upserts.clear();
  }

  private Upsert prepare(LiteTable t, List<String> columns) throws SQLException {
    StringBuilder cols = new StringBuilder();
    StringBuilder marks = new StringBuilder();
    List<ReplicaStorage> storage = new ArrayList<>();
    for (String col : columns) {
      storage.add(t.storage(col));
      cols.append(SqlNames.quote(col)).append(", ");
      marks.append("?, ");
    }
    cols.append(SqlNames.quote(ReplicaSchema.ROW_VERSION));
    marks.append('?');
    return new Upsert(List.copyOf(columns), List.copyOf(storage), statements.prepare("INSERT OR REPLACE INTO "
        + t.sqlName() + " (" + cols + ") VALUES (" + marks + ")"));
  }
}
