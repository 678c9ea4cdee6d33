package io.pg2lite.replica.merge;

import io.pg2lite.protocol.value.Row;
import io.pg2lite.protocol.watermark.Watermark;
import io.pg2lite.replica.changelog.RowChangeLog;
import io.pg2lite.replica.changelog.RowKeyText;
import io.pg2lite.replica.file.Statements;
import io.pg2lite.replica.lite.LiteValues;
import io.pg2lite.replica.lite.SqlNames;
import io.pg2lite.replica.schema.LiteTable;
import io.pg2lite.replica.schema.ReplicaSchema;
import io.pg2lite.replica.schema.RowKeys;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;

/**
 * An update that changes a row's key (old key → new key), when the replica already holds a row at
 * the new key.
 *
 * <p>Postgres never holds two rows with one key (unless the key constraint is deferrable), so a row
 * already at the new key can only be a row a backfill copied from a snapshot taken after this
 * update committed: the copy is ahead of the live stream, whose older changes are still being
 * replayed. Such a row was inserted by the copy and not touched since, so its {@code _0_version}
 * is the copy's snapshot watermark, above the update's watermark; every row the live stream
 * wrote has a version at or below it. The move is then applied as the reference applies any
 * row key change (§6.4), with the merge rule of backfills:
 * <ul>
 *   <li>the row at the old key is deleted (and its delete recorded, so no later copy brings it back);</li>
 *   <li>the row at the new key is merged: the columns the copy wrote (hidden, being backfilled)
 *       keep the copy's values, which are newer than the update's; the other columns take the
 *       update's values, and those the update left out (unchanged TOAST) the old row's; the row
 *       keeps the copy's version, so no row version ever moves back.</li>
 * </ul>
 * Invariant: a key change never fails on the row key's unique index because of a copied row, and
 * never overwrites a copied value with an older one.
 *
 * <p>A row at the new key with a version at or below the update's was written by the live stream
 * itself: Postgres held both rows at that moment (deferrable key constraint). One unique row key
 * cannot represent that, so the change is refused with an error rather than losing a row.
 */
public final class KeyChange {
  private final RowChangeLog changeLog;
  private final Statements statements;

  public KeyChange(Statements statements, RowChangeLog changeLog) {
    this.statements = statements;
    this.changeLog = changeLog;
  }

  /**
   * Applies the move of {@code row} from {@code oldKey} to {@code newKey} onto a row already at the
   * new key, and returns true; returns false (nothing done) when the new key is free, so the
   * caller's plain UPDATE of the key applies.
   */
  public boolean ontoExistingRow(LiteTable t, Row oldKey, Row newKey, Row row, Watermark version)
      throws SQLException {
    Watermark existing = rowVersion(t, newKey);
    if (existing == null) {
      return false;
    }
    if (!t.hasHiddenColumns() || existing.compareTo(version) <= 0) {
      throw new IllegalArgumentException("an update of table \"" + t.name() + "\" moves the row with key "
          + RowKeyText.of(oldKey) + " to key " + RowKeyText.of(newKey) + ", where the replica "
          + "already holds a row written by the live stream (version " + existing + "): Postgres held both rows at "
          + "once, which only a deferrable key constraint allows and a replica with one unique row key cannot hold");
    }
    mergeIntoCopy(t, oldKey, newKey, row);
    PreparedStatement delete = statements.prepare("DELETE FROM " + t.sqlName() + " WHERE "
        + RowKeys.where(oldKey));
    RowKeys.bindKey(delete, 1, t, oldKey);
    delete.executeUpdate();
    changeLog.delete(t, oldKey);
    changeLog.set(t, newKey, row);
    return true;
  }

  /** The {@code _0_version} of the row at {@code key}, or null when there is none (or it has none). */
  private Watermark rowVersion(LiteTable t, Row key) throws SQLException {
    PreparedStatement ps = statements.prepare("SELECT " + SqlNames.quote(ReplicaSchema.ROW_VERSION) + " FROM "
        + t.sqlName() + " WHERE " + RowKeys.where(key));
    RowKeys.bindKey(ps, 1, t, key);
    try (ResultSet rs = ps.executeQuery()) {
      String version = rs.next() ? rs.getString(1) : null;
      return version == null ? null : Watermark.parse(version);
    }
  }

  /**
   * Writes into the copied row at {@code newKey} the update's values of the columns the copy did not
   * write, and the old row's values of those the update left out. Hidden columns and key columns
   * are left as the copy wrote them.
   */
  private void mergeIntoCopy(LiteTable t, Row oldKey, Row newKey, Row row) throws SQLException {
    List<String> fromUpdate = new ArrayList<>();
    List<String> fromOldRow = new ArrayList<>();
    for (String col : t.columns().keySet()) {
      if (t.isHidden(col) || newKey.contains(col)) {
        continue;
      }
      (row.contains(col) ? fromUpdate : fromOldRow).add(col);
    }
    if (fromUpdate.isEmpty() && fromOldRow.isEmpty()) {
      return;
    }
    StringBuilder sql = new StringBuilder("UPDATE ").append(t.sqlName()).append(" SET ");
    for (String col : fromUpdate) {
      sql.append(SqlNames.quote(col)).append(" = ?, ");
    }
    if (!fromOldRow.isEmpty()) {
      // Row-value assignment from the old row; absent when the replica never saw it (all NULL).
      sql.append('(').append(quotedList(fromOldRow)).append(") = (SELECT ").append(quotedList(fromOldRow))
          .append(" FROM ").append(t.sqlName()).append(" WHERE ").append(RowKeys.where(oldKey))
          .append("), ");
    }
    sql.setLength(sql.length() - 2);
    sql.append(" WHERE ").append(RowKeys.where(newKey));
    PreparedStatement ps = statements.prepare(sql.toString());
    int i = 1;
    for (String col : fromUpdate) {
      LiteValues.bind(ps, i++, row.get(col), t.storage(col));
    }
    if (!fromOldRow.isEmpty()) {
      i = RowKeys.bindKey(ps, i, t, oldKey);
    }
    RowKeys.bindKey(ps, i, t, newKey);
    ps.executeUpdate();
  }

  private static String quotedList(List<String> cols) {
    StringBuilder sb = new StringBuilder();
    for (String col : cols) {
      sb.append(sb.length() == 0 ? "" : ", ").append(SqlNames.quote(col));
    }
    return sb.toString();
  }

}
