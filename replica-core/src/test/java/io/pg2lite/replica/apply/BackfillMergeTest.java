package io.pg2lite.replica.apply;

import static io.pg2lite.replica.apply.Tables.ITEM;
import static org.junit.jupiter.api.Assertions.assertEquals;

import io.pg2lite.protocol.message.DataChange;
import io.pg2lite.protocol.message.SchemaChange;
import io.pg2lite.protocol.schema.BackfillId;
import io.pg2lite.protocol.schema.BackfillStatus;
import io.pg2lite.protocol.schema.Column;
import io.pg2lite.protocol.schema.ColumnSpec;
import io.pg2lite.protocol.schema.QualifiedName;
import io.pg2lite.protocol.schema.Relation;
import io.pg2lite.protocol.schema.RowKey;
import io.pg2lite.protocol.testing.ChangeMessages;
import io.pg2lite.protocol.value.Row;
import io.pg2lite.protocol.value.Value;
import io.pg2lite.protocol.watermark.Watermark;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The reference's merge rule (§6.4): backfilled values never overwrite a value written by a
 * change newer than the snapshot, and never bring back a row deleted after it.
 */
class BackfillMergeTest {
  @TempDir
  Path dir;

  @Test
  void backfillNeverOverwritesNewerValuesNorResurrectsDeletedRows() throws Exception {
    QualifiedName t = new QualifiedName("public", "item");
    Relation key = new Relation("public", "item", RowKey.of("id"));
    Watermark snapshot = Watermark.fromLsn("0/250");
    try (ReplicaHarness h = new ReplicaHarness(dir)) {
      h.feed(ChangeMessages.after("0/100").begin(1).change(Tables.createItem())
          .insert(ITEM, Row.of("id", Value.of(1))).insert(ITEM, Row.of("id", Value.of(2)))
          .insert(ITEM, Row.of("id", Value.of(3))).commit("0/200")
          .begin(2).change(new SchemaChange.AddColumn(t, new Column("score", ColumnSpec.of(7, "int4")), null,
              new BackfillId(7))).commit("0/220")
          // After the snapshot (0/250): row 1 gets a newer score, row 2 is deleted.
          .begin(3).update(ITEM, null, Row.of("id", Value.of(1), "score", Value.of(100)))
          .delete(ITEM, Row.of("id", Value.of(2))).commit("0/300")
          .beginBackfill().change(new DataChange.Backfill(key, List.of("score"), snapshot, List.of(
              List.of(Value.of(1), Value.of(10)), List.of(Value.of(2), Value.of(20)), List.of(Value.of(3), Value.of(30))),
              null)).commitBackfill().entries());
      assertEquals(List.of(Arrays.asList(1, 100), Arrays.asList(3, 30)), h.query("SELECT id, score FROM item ORDER BY id"),
          "row 1 keeps its newer value, row 2 stays deleted, row 3 gets the backfilled value");
      assertEquals(List.of(List.of(2)), h.query("SELECT count(*) FROM \"_pg2lite.changes\""),
          "the live changes during the copy are recorded for the merge");
      h.feed(ChangeMessages.after("0/300").begin(4).change(new SchemaChange.BackfillCompleted(key,
          List.of("score"), snapshot, new BackfillStatus(3, 3, null))).commit("0/400").entries());
      assertEquals(List.of(List.of(0)), h.query("SELECT count(*) FROM \"_pg2lite.changes\""),
          "once no column is hidden, no merge reads the records: they are gone");
      h.feed(ChangeMessages.after("0/400").begin(5).update(ITEM, null, Row.of("id", Value.of(3), "score",
          Value.of(31))).commit("0/500").entries());
      assertEquals(List.of(List.of(0)), h.query("SELECT count(*) FROM \"_pg2lite.changes\""),
          "a table without hidden columns records nothing");
    }
  }

  @Test
  void olderChangesArrivingAfterABatchDoNotBlockLaterBatches() throws Exception {
    Relation key = new Relation("public", "item", RowKey.of("id"));
    QualifiedName t = new QualifiedName("public", "item");
    Watermark snapshot = Watermark.fromLsn("0/400");
    try (ReplicaHarness h = new ReplicaHarness(dir)) {
      h.feed(ChangeMessages.after("0/100").begin(1).change(Tables.createItem())
          .change(new SchemaChange.AddColumn(t, new Column("score", ColumnSpec.of(7, "int4")), null, new BackfillId(7)))
          .insert(ITEM, Row.of("id", Value.of(1), "score", Value.of(5))).commit("0/200")
          .beginBackfill().change(new DataChange.Backfill(key, List.of("score"), snapshot,
              List.of(List.of(Value.of(1), Value.of(50))), null)).commitBackfill().entries());
      assertEquals(List.of(Arrays.asList(1, 50)), h.query("SELECT id, score FROM item"),
          "a change older than the snapshot yields to the snapshot's value");
    }
  }
}
