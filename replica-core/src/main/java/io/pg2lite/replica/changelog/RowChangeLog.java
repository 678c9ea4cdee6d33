package io.pg2lite.replica.changelog;

import io.pg2lite.protocol.value.Row;
import io.pg2lite.protocol.watermark.Watermark;
import io.pg2lite.replica.file.MetadataTables;
import io.pg2lite.replica.file.Statements;
import io.pg2lite.replica.lite.SqlNames;
import io.pg2lite.replica.schema.LiteTable;
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
 * The per-row record the backfill merge rule reads ({@link MetadataTables#CHANGES}): for each row
 * of a table that has hidden (backfilling) columns, its last operation and, per hidden column,
 * the commit watermark of the last change that wrote it. The row writers tell it what they did;
 * the merge reads it; it calls neither.
 *
 * <p>Ordering rule: operations of the open upstream transaction are kept in memory and written at
 * its commit, stamped with the commit watermark: data records carry the pre-commit watermark,
 * which can lie at or below a backfill snapshot taken before the change committed (ADR 0003).
 * Comparing a snapshot with a pre-commit watermark would let an older copy overwrite the change.
 * So within a transaction the merge sees only what earlier transactions committed, which is
 * right: a backfill transaction never shares a transaction with live changes.
 *
 * <p>Tables without hidden columns cost nothing.
 */
public final class RowChangeLog {
  /** The row key of a table-wide truncate record; no row key's text (a JSON array) can equal it. */
  public static final String TRUNCATED = "*";

  private record Pending(String table, String rowKey, Operation op, Set<String> columns) {}

  private final Statements statements;
  private final Map<List<String>, Pending> pending = new LinkedHashMap<>();

  public RowChangeLog(Statements statements) {
    this.statements = statements;
  }

  /** A write of {@code row} at {@code key}: remembers which hidden columns it set. */
  public void set(LiteTable t, Row key, Row row) {
    if (!t.hasHiddenColumns()) {
      return;
    }
    String rowKey = RowKeyText.of(key);
    Pending before = pending.get(List.of(t.name(), rowKey));
    Set<String> cols = new HashSet<>();
    if (before != null && before.op == Operation.SET) {
      cols.addAll(before.columns);
    }
    for (String col : t.hiddenColumns()) {
      if (row.contains(col)) {
        cols.add(col);
      }
    }
    pending.put(List.of(t.name(), rowKey), new Pending(t.name(), rowKey, Operation.SET, cols));
  }

  /** A delete of the row with {@code key}. */
  public void delete(LiteTable t, Row key) {
    if (t.hasHiddenColumns()) {
      String rowKey = RowKeyText.of(key);
      pending.put(List.of(t.name(), rowKey), new Pending(t.name(), rowKey, Operation.DELETE, Set.of()));
    }
  }

  /**
   * A truncate: the table's rows are gone, and so are their records. A table with hidden columns
   * keeps one table-wide record instead ({@link #TRUNCATED}, {@link Operation#TRUNCATE}, the
   * truncate's commit watermark): every row of a snapshot older than the truncate was emptied by
   * it, so a copy from such a snapshot must write none of its rows (the per-row records that
   * would have said so are gone).
   */
  public void truncate(LiteTable t) throws SQLException {
    PreparedStatement ps = statements.prepare("DELETE FROM " + SqlNames.quote(MetadataTables.CHANGES)
        + " WHERE table_name = ?");
    ps.setString(1, t.name());
    ps.executeUpdate();
    pending.values().removeIf(p -> p.table.equals(t.name()));
    if (t.hasHiddenColumns()) {
      pending.put(List.of(t.name(), TRUNCATED), new Pending(t.name(), TRUNCATED, Operation.TRUNCATE, Set.of()));
    }
  }

  /**
   * Whether any committed operation of {@code t} is recorded: while a table is copied whole and
   * the live stream leaves it alone, none is, and a backfill message then needs no look-up.
   */
  public boolean hasAny(LiteTable t) throws SQLException {
    PreparedStatement ps = statements.prepare("SELECT 1 FROM " + SqlNames.quote(MetadataTables.CHANGES)
        + " WHERE table_name = ? LIMIT 1");
    ps.setString(1, t.name());
    try (ResultSet rs = ps.executeQuery()) {
      return rs.next();
    }
  }

  /**
   * The last committed operations of many rows of {@code t} at once (by row-key text,
   * {@link RowKeyText}), in chunks of up to 500 keys per query: a backfill message asks for all
   * its rows in one go.
   */
  public Map<String, LastChange> last(LiteTable t, List<String> rowKeys) throws SQLException {
    Map<String, LastChange> out = new HashMap<>();
    for (int from = 0; from < rowKeys.size(); from += 500) {
      List<String> chunk = rowKeys.subList(from, Math.min(rowKeys.size(), from + 500));
      PreparedStatement ps = statements.prepare("SELECT row_key, op, state_version, column_versions FROM "
          + SqlNames.quote(MetadataTables.CHANGES) + " WHERE table_name = ? AND row_key IN ("
          + "?, ".repeat(chunk.size() - 1) + "?)");
      ps.setString(1, t.name());
      for (int i = 0; i < chunk.size(); i++) {
        ps.setString(i + 2, chunk.get(i));
      }
      try (ResultSet rs = ps.executeQuery()) {
        while (rs.next()) {
          out.put(rs.getString(1), new LastChange(Operation.of(rs.getString(2)), Watermark.parse(rs.getString(3)),
              ColumnVersions.parse(rs.getString(4))));
        }
      }
    }
    return out;
  }

  /**
   * Writes the open transaction's operations with its commit watermark. A {@link Operation#SET}
   * keeps the versions earlier transactions gave the columns it did not write.
   */
  public void commit(Watermark commit) throws SQLException {
    for (Pending p : pending.values()) {
      Map<String, Watermark> versions = new HashMap<>();
      if (p.op == Operation.SET) {
        versions.putAll(committedColumnVersions(p));
        for (String col : p.columns) {
          versions.put(col, commit);
        }
      }
      PreparedStatement ps = statements.prepare("INSERT OR REPLACE INTO " + SqlNames.quote(MetadataTables.CHANGES)
          + " (table_name, row_key, op, state_version, column_versions) VALUES (?, ?, ?, ?, ?)");
      ps.setString(1, p.table);
      ps.setString(2, p.rowKey);
      ps.setString(3, p.op.code());
      ps.setString(4, commit.toString());
      ps.setString(5, ColumnVersions.format(versions));
      ps.executeUpdate();
    }
    pending.clear();
  }

  /** The column versions of the row's committed record, if that is a {@link Operation#SET}; else none. */
  private Map<String, Watermark> committedColumnVersions(Pending p) throws SQLException {
    PreparedStatement q = statements.prepare("SELECT op, column_versions FROM "
        + SqlNames.quote(MetadataTables.CHANGES) + " WHERE table_name = ? AND row_key = ?");
    q.setString(1, p.table);
    q.setString(2, p.rowKey);
    try (ResultSet rs = q.executeQuery()) {
      if (rs.next() && Operation.SET.code().equals(rs.getString(1))) {
        return ColumnVersions.parse(rs.getString(2));
      }
    }
    return Map.of();
  }

  /** Forgets the open transaction's operations (rollback). */
  public void discard() {
    pending.clear();
  }
}
