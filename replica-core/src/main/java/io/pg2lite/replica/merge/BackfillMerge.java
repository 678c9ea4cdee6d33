package io.pg2lite.replica.merge;

import io.pg2lite.protocol.message.DataChange;
import io.pg2lite.protocol.stored.ReplicaStorage;
import io.pg2lite.protocol.value.Row;
import io.pg2lite.protocol.value.Value;
import io.pg2lite.protocol.watermark.Watermark;
import io.pg2lite.replica.changelog.LastChange;
import io.pg2lite.replica.changelog.Operation;
import io.pg2lite.replica.changelog.RowChangeLog;
import io.pg2lite.replica.changelog.RowKeyText;
import io.pg2lite.replica.file.Statements;
import io.pg2lite.replica.lite.LiteValues;
import io.pg2lite.replica.lite.ValueLength;
import io.pg2lite.replica.schema.LiteTable;
import io.pg2lite.replica.schema.ReplicaSchema;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;

/**
 * Applies a {@code backfill} message (rows copied from a snapshot) by the merge rule (reference
 * §6.4, ADR 0003), reading what the live stream did since from the {@link RowChangeLog}:
 * <ul>
 *   <li>a table truncated after the snapshot takes none of the rows (they were all emptied);</li>
 *   <li>a row deleted after the snapshot is not brought back;</li>
 *   <li>of a row the replica holds, only the columns no newer change wrote are overwritten
 *       ({@link MergeColumns}); a row it lacks is inserted.</li>
 * </ul>
 * Invariant: a backfill never overwrites newer data nor resurrects a deleted row, whatever the
 * order in which copies and live changes arrive. Copied rows get the snapshot's watermark as
 * their {@code _0_version}.
 *
 * <p>While the change log holds nothing of the table (a table copied whole that the live stream
 * has not touched since), no row needs a look-up: every row is written whole.
 *
 * <p>Rows whose merge needs the same statement (the same columns to overwrite; usually all of
 * them) go to SQLite as one JDBC batch: a backfill message holds distinct keys, and the change
 * log it consults is not written by it, so batching cannot change what a later row of the
 * message sees.
 */
public final class BackfillMerge {
  private static final int MAX_BATCH = 1000;

  private final Statements statements;
  private final ReplicaSchema schema;
  private final RowChangeLog changeLog;

  public BackfillMerge(Statements statements, ReplicaSchema schema, RowChangeLog changeLog) {
    this.statements = statements;
    this.schema = schema;
    this.changeLog = changeLog;
  }

  public void apply(DataChange.Backfill b) throws SQLException {
    LiteTable t = schema.requireForRows(b.relation().table());
    List<String> keyCols = b.relation().rowKey().columns();
    if (keyCols.isEmpty() && !b.rowValues().isEmpty()) {
      throw new IllegalArgumentException("backfill of " + t.name() + " without a row key");
    }
    List<String> cols = new ArrayList<>(keyCols);
    cols.addAll(b.columns());
    List<ReplicaStorage> storage = new ArrayList<>(cols.size());
    for (String col : cols) {
      storage.add(t.storage(col));
    }
    Watermark snapshot = b.watermark();
    checkWidths(t, b.rowValues(), cols.size());
    // The cheap path: nothing the live stream did to this table is recorded, so every copied row
    // is written whole (the rule below, with no last change for any row).
    boolean consult = changeLog.hasAny(t);
    List<String> rowKeys = consult ? rowKeys(b.rowValues(), keyCols) : null;
    Map<String, LastChange> lastChanges = Map.of();
    if (consult) {
      List<String> lookup = new ArrayList<>(rowKeys);
      lookup.add(RowChangeLog.TRUNCATED);
      lastChanges = changeLog.last(t, lookup);
    }
    LastChange truncated = lastChanges.get(RowChangeLog.TRUNCATED);
    if (truncated != null && truncated.isAfter(snapshot)) {
      return; // the table was emptied after the snapshot: none of its rows exist any more
    }
    PreparedStatement ps = null;
    boolean[] psMask = null;
    int pending = 0;
    long lengthLimit = statements.lengthLimit();
    for (int r = 0; r < b.rowValues().size(); r++) {
      List<Value> values = b.rowValues().get(r);
      long rowBytes = 0;
      for (int k = keyCols.size(); k < cols.size(); k++) {
        rowBytes += ValueLength.check(values.get(k), storage.get(k), lengthLimit, t.name(), cols.get(k),
            () -> keyText(keyCols, values));
      }
      ValueLength.checkRow(rowBytes, lengthLimit, t.name(), () -> keyText(keyCols, values));
      LastChange last = consult ? lastChanges.get(rowKeys.get(r)) : null;
      if (last != null && last.op() == Operation.DELETE && last.isAfter(snapshot)) {
        continue; // deleted after the snapshot: never resurrect it
      }
      boolean[] mask = MergeColumns.overwritable(last, cols, keyCols.size(), snapshot);
      if (mask == null) {
        continue; // every column was written by a newer change
      }
      if (ps == null || !Arrays.equals(mask, psMask)) {
        if (pending > 0) {
          ps.executeBatch();
          pending = 0;
        }
        ps = statements.prepare(MergeColumns.sql(t, cols, keyCols.size(), mask));
        psMask = mask;
      }
      for (int k = 0; k < cols.size(); k++) {
        LiteValues.bind(ps, k + 1, values.get(k), storage.get(k));
      }
      ps.setString(cols.size() + 1, snapshot.toString());
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

  /** A copied row's key (its first values), for a message. */
  private static String keyText(List<String> keyCols, List<Value> values) {
    return ValueLength.keyText(keyCols, col -> values.get(keyCols.indexOf(col)));
  }

  private static void checkWidths(LiteTable t, List<List<Value>> rows, int width) {
    for (List<Value> values : rows) {
      if (values.size() != width) {
        throw new IllegalArgumentException("backfill row of " + t.name() + " has " + values.size() + " values for "
            + width + " columns");
      }
    }
  }

  /** Each row's key as the change log spells it. */
  private static List<String> rowKeys(List<List<Value>> rows, List<String> keyCols) {
    List<String> out = new ArrayList<>(rows.size());
    for (List<Value> values : rows) {
      Row.Builder kb = Row.builder();
      for (int k = 0; k < keyCols.size(); k++) {
        kb.put(keyCols.get(k), values.get(k));
      }
      out.add(RowKeyText.of(kb.build()));
    }
    return out;
  }
}
