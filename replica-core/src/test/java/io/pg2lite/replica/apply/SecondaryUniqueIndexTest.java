package io.pg2lite.replica.apply;

import static io.pg2lite.replica.apply.Tables.ITEM;
import static org.junit.jupiter.api.Assertions.assertEquals;

import io.pg2lite.protocol.message.DataChange;
import io.pg2lite.protocol.message.SchemaChange;
import io.pg2lite.protocol.schema.BackfillId;
import io.pg2lite.protocol.schema.Column;
import io.pg2lite.protocol.schema.ColumnSpec;
import io.pg2lite.protocol.schema.IndexSpec;
import io.pg2lite.protocol.schema.QualifiedName;
import io.pg2lite.protocol.schema.Relation;
import io.pg2lite.protocol.schema.RowKey;
import io.pg2lite.protocol.schema.SortDirection;
import io.pg2lite.protocol.testing.ChangeMessages;
import io.pg2lite.protocol.value.Row;
import io.pg2lite.protocol.value.Value;
import io.pg2lite.protocol.watermark.Watermark;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * An upstream unique index other than the row key is replicated as a plain index. A replica's
 * intermediate states can break a uniqueness that every committed Postgres state kept: a copy
 * from a snapshot newer than the live stream writes a future value next to rows the live stream
 * has not moved yet. Found by the randomized differential test (seed 8313, a unique index on
 * (id DESC, date) under a retype backfill and a key change).
 */
class SecondaryUniqueIndexTest {
  @TempDir
  Path dir;

  @Test
  void aCopyAheadOfTheLiveStreamMayRepeatAUniqueValueForAWhile() throws Exception {
    QualifiedName t = new QualifiedName("public", "item");
    Relation key = new Relation("public", "item", RowKey.of("id"));
    Map<String, SortDirection> email = new LinkedHashMap<>();
    email.put("email", SortDirection.ASC);
    Watermark snapshot = Watermark.fromLsn("0/250");
    try (ReplicaHarness h = new ReplicaHarness(dir)) {
      h.feed(ChangeMessages.after("0/100").begin(1).change(Tables.createItem())
          .insert(ITEM, Row.of("id", Value.of(1))).insert(ITEM, Row.of("id", Value.of(2))).commit("0/200")
          .begin(2).change(new SchemaChange.AddColumn(t, new Column("email", ColumnSpec.of(7, "text")), null,
              new BackfillId(7)))
          .change(new SchemaChange.CreateIndex(new IndexSpec("public", "item", "item_email", true, email)))
          .commit("0/220")
          .begin(3).update(ITEM, null, Row.of("id", Value.of(2), "email", Value.of("x"))).commit("0/230")
          // The copy's snapshot (0/250) already has row 2 at "y" and row 1 at "x" (0/240): the
          // live stream brings that change only after the copy.
          .beginBackfill().change(new DataChange.Backfill(key, List.of("email"), snapshot, List.of(
              List.of(Value.of(1), Value.of("x")), List.of(Value.of(2), Value.of("y"))), null)).commitBackfill()
          .begin(4).update(ITEM, null, Row.of("id", Value.of(2), "email", Value.of("y")))
          .update(ITEM, null, Row.of("id", Value.of(1), "email", Value.of("x"))).commit("0/240")
          .entries());
      assertEquals(List.of(List.of(1, "x"), List.of(2, "y")), h.query("SELECT id, email FROM item ORDER BY id"));
      assertEquals(List.of(List.of(0)), h.query("SELECT \"unique\" FROM pragma_index_list('item') WHERE name = "
          + "'item_email'"), "a plain index: the replica mirrors, Postgres enforces");
    }
  }

  @Test
  void anOlderReplicasUniqueSecondaryIndexBecomesPlainOnOpenTheRowKeyStaysUnique() throws Exception {
    try (ReplicaHarness h = new ReplicaHarness(dir)) {
      h.feed(ChangeMessages.after("0/100").begin(1).change(Tables.createItem()).commit("0/200").entries());
      h.replica.close();
      try (java.sql.Connection c = java.sql.DriverManager.getConnection("jdbc:sqlite:" + h.file);
          java.sql.Statement s = c.createStatement()) {
        s.execute("CREATE UNIQUE INDEX \"item_name\" ON \"item\" (\"name\" DESC)"); // as older sinks made them
      }
      h.open();
      assertEquals(List.of(List.of("item_name", 0), List.of("item.pg2lite_row_key", 1)), h.query(
          "SELECT name, \"unique\" FROM pragma_index_list('item') WHERE origin = 'c' ORDER BY name DESC"));
      assertEquals(List.of(List.of("name", 1)), h.query("SELECT name, desc FROM pragma_index_xinfo('item_name') "
          + "WHERE key = 1"), "same column, same order");
    }
  }
}
