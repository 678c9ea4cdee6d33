package io.pg2lite.sink.replica;

import io.pg2lite.protocol.value.Row;
import io.pg2lite.protocol.watermark.Watermark;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The per-row record the backfill merge rule reads ({@code _pg2lite.changes}): for each row of a
 * table that has hidden (backfilling) columns, its last operation and, per hidden column, the
 * commit watermark of the last change that wrote it.
 *
 * <p>Operations of the open upstream transaction are kept in memory and written at its commit,
 * stamped with the commit watermark: data records carry the pre-commit watermark, which can lie at
 * or below a backfill snapshot taken before the change committed (ADR 0003). Tables without hidden
 * columns cost nothing.
 */
final class RowChangeLog {
  /** Prepares (and caches) statements on the replica's connection. */
  interface Statements {
    PreparedStatement prepare(String sql) throws SQLException;
  }

  /** The last recorded operation of a row. */
  record LastChange(String op, String version, Map<String, String> columnVersions) {}

  private record Pending(String table, String rowKey, String op, Set<String> columns) {}

  /** The row key of a table-wide truncate record; no row key's text (a JSON array) can equal it. */
  static final String TRUNCATED = "*";

  private final Statements statements;
  private final Map<List<String>, Pending> pending = new LinkedHashMap<>();

  RowChangeLog(Statements statements) {
    this.statements = statements;
  }

  /** A write of {@code row}: remembers which hidden columns it set. */
  void set(LiteTable t, Row key, Row row, Watermark version) {
    if (t.hidden.isEmpty()) {
      return;
    }
    String rowKey = RowWriter.rowKeyText(key);
    Pending before = pending.get(List.of(t.name, rowKey));
    Set<String> cols = new HashSet<>();
    if (before != null && before.op.equals("s")) {
      cols.addAll(before.columns);
    }
    for (String col : t.hidden.keySet()) {
      if (row.contains(col)) {
        cols.add(col);
      }
    }
    pending.put(List.of(t.name, rowKey), new Pending(t.name, rowKey, "s", cols));
  }

  /** A delete of the row with {@code key}. */
  void delete(LiteTable t, Row key, Watermark version) {
    if (!t.hidden.isEmpty()) {
      String rowKey = RowWriter.rowKeyText(key);
      pending.put(List.of(t.name, rowKey), new Pending(t.name, rowKey, "d", Set.of()));
    }
  }

  /**
   * The last committed operations of many rows of {@code t} at once (by row-key text), in chunks
   * of up to 500 keys per query: a backfill message asks for all its rows in one go.
   */
  Map<String, LastChange> last(LiteTable t, List<String> rowKeys) throws SQLException {
    Map<String, LastChange> out = new HashMap<>();
    for (int from = 0; from < rowKeys.size(); from += 500) {
      List<String> chunk = rowKeys.subList(from, Math.min(rowKeys.size(), from + 500));
      PreparedStatement ps = statements.prepare("SELECT row_key, op, state_version, column_versions FROM "
          + SqlNames.quote(ReplicaFile.CHANGES) + " WHERE table_name = ? AND row_key IN ("
          + "?, ".repeat(chunk.size() - 1) + "?)");
      ps.setString(1, t.name);
      for (int i = 0; i < chunk.size(); i++) {
        ps.setString(i + 2, chunk.get(i));
      }
      try (ResultSet rs = ps.executeQuery()) {
        while (rs.next()) {
          out.put(rs.getString(1), new LastChange(rs.getString(2), rs.getString(3),
              ColumnVersions.parse(rs.getString(4))));
        }
      }
    }
    return out;
  }

  /** Writes the open transaction's operations with its commit watermark. */
  void commit(Watermark commit) throws SQLException {
    for (Pending p : pending.values()) {
      Map<String, String> versions = new HashMap<>();
      if (p.op.equals("s")) {
        PreparedStatement q = statements.prepare("SELECT op, column_versions FROM "
            + SqlNames.quote(ReplicaFile.CHANGES) + " WHERE table_name = ? AND row_key = ?");
        q.setString(1, p.table);
        q.setString(2, p.rowKey);
        try (ResultSet rs = q.executeQuery()) {
          if (rs.next() && "s".equals(rs.getString(1))) {
            versions.putAll(ColumnVersions.parse(rs.getString(2)));
          }
        }
        for (String col : p.columns) {
          versions.put(col, commit.toString());
        }
      }
      PreparedStatement ps = statements.prepare("INSERT OR REPLACE INTO " + SqlNames.quote(ReplicaFile.CHANGES)
          + " (table_name, row_key, op, state_version, column_versions) VALUES (?, ?, ?, ?, ?)");
      ps.setString(1, p.table);
      ps.setString(2, p.rowKey);
      ps.setString(3, p.op);
      ps.setString(4, commit.toString());
      ps.setString(5, ColumnVersions.format(versions));
      ps.executeUpdate();
    }
    pending.clear();
  }

  /** Forgets the open transaction's operations (rollback). */
  void discard() {
    pending.clear();
  }

  /**
   * A truncate: the table's rows are gone, and so are their records. A table with hidden columns
   * keeps one table-wide record instead ({@link #TRUNCATED}, op {@code t}, the truncate's commit
   * watermark): every row of a snapshot older than the truncate was emptied by it, so a copy from
   * such a snapshot must write none of its rows (the per-row records that would have said so are
   * gone).
   */
  void truncate(LiteTable t) throws SQLException {
    PreparedStatement ps = statements.prepare("DELETE FROM " + SqlNames.quote(ReplicaFile.CHANGES)
        + " WHERE table_name = ?");
    ps.setString(1, t.name);
    ps.executeUpdate();
    pending.values().removeIf(p -> p.table.equals(t.name));
    if (!t.hidden.isEmpty()) {
      pending.put(List.of(t.name, TRUNCATED), new Pending(t.name, TRUNCATED, "t", Set.of()));
    }
  }
}
