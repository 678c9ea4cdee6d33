package io.pg2lite.replica.merge;

import io.pg2lite.protocol.watermark.Watermark;
import io.pg2lite.replica.changelog.LastChange;
import io.pg2lite.replica.changelog.Operation;
import io.pg2lite.replica.lite.SqlNames;
import io.pg2lite.replica.schema.LiteTable;
import io.pg2lite.replica.schema.ReplicaSchema;
import java.util.List;

/**
 * The per-row decision of the backfill merge, and the statement that carries it out.
 *
 * <p>A copied row's columns are written where no change newer than the snapshot wrote them: a
 * row without a record (the live stream has not changed it while the table had hidden columns)
 * takes every copied column; a row last {@link Operation#SET} takes the columns whose version is
 * absent or at or below the snapshot. A version equal to the snapshot loses to the copy: the
 * snapshot already holds that change.
 */
final class MergeColumns {
  private MergeColumns() {}

  /**
   * Which copied columns ({@code cols}, key first) the merge may write for a row whose last
   * change is {@code last}: a mask over {@code cols}, true where the column may be written. Null
   * when the row exists and every column was written by a newer change: nothing to do.
   */
  static boolean[] overwritable(LastChange last, List<String> cols, int keyCount, Watermark snapshot) {
    boolean set = last != null && last.op() == Operation.SET;
    boolean[] mask = new boolean[cols.size()];
    boolean any = false;
    for (int k = keyCount; k < cols.size(); k++) {
      Watermark v = set ? last.columnVersions().get(cols.get(k)) : null;
      if (v == null || v.compareTo(snapshot) <= 0) {
        mask[k] = true;
        any = true;
      }
    }
    return any || !set ? mask : null;
  }

  /**
   * {@code INSERT ... ON CONFLICT (key) DO UPDATE SET} the columns in {@code overwrite} (or
   * {@code DO NOTHING}): a row the replica lacks is inserted whole, one it holds gets only the
   * columns the merge allows.
   */
  static String sql(LiteTable t, List<String> cols, int keyCount, boolean[] overwrite) {
    StringBuilder sql = new StringBuilder("INSERT INTO ").append(t.sqlName()).append(" (");
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
}
