package io.pg2lite.replica.apply;

import static io.pg2lite.replica.apply.Tables.ITEM;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

import io.pg2lite.protocol.message.DataChange;
import io.pg2lite.protocol.schema.Relation;
import io.pg2lite.protocol.schema.ReplicaIdentity;
import io.pg2lite.protocol.schema.RowKey;
import io.pg2lite.protocol.testing.ChangeMessages;
import io.pg2lite.protocol.value.Row;
import io.pg2lite.protocol.value.Value;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Row changes on a real SQLite file: message stream in, expected table out. */
class DmlApplyTest {
  @TempDir
  Path dir;

  private static Row item(long id, String name) {
    return Row.of("id", Value.of(id), "name", Value.of(name), "price", Value.of("1.10"), "ok", Value.of(true),
        "data", Value.of("\\x00ff"), "tags", new io.pg2lite.protocol.value.Value.Array(List.of(Value.of("a"), Value.NULL)));
  }

  @Test
  void insertsUpdatesDeletesWithExactValues() throws Exception {
    try (ReplicaHarness h = new ReplicaHarness(dir)) {
      h.feed(ChangeMessages.after("0/100").begin(1).change(Tables.createItem()).insert(ITEM, item(1, "one"))
          .insert(ITEM, item(2, "two")).commit("0/200")
          .begin(2).update(ITEM, null, Row.of("id", Value.of(1), "name", Value.of("uno")))
          .delete(ITEM, Row.of("id", Value.of(2))).commit("0/300").entries());
      List<List<Object>> rows = h.query("SELECT id, name, price, ok, tags, _0_version FROM item ORDER BY id");
      assertEquals(1, rows.size());
      assertEquals(1, rows.get(0).get(0));
      assertEquals(1, rows.get(0).get(3), "bool as 1/0");
      assertEquals("[\"a\",null]", rows.get(0).get(4), "arrays as JSON text");
      assertEquals("1.10", rows.get(0).get(2), "numeric stays exact text");
      assertEquals("uno", rows.get(0).get(1));
      assertEquals(io.pg2lite.protocol.watermark.Watermark.fromLsn("0/200").nextMajor().toString(), rows.get(0).get(5),
          "_0_version is the writing transaction's watermark");
      assertArrayEquals(new byte[] {0, -1}, (byte[]) h.query("SELECT data FROM item").get(0).get(0), "bytea as BLOB");
      assertEquals("text", h.query("SELECT typeof(price) FROM item").get(0).get(0), "TEXT affinity kept numeric text");
    }
  }

  @Test
  void anUpdateKeepsAbsentColumnsAndAMissingRowBecomesAnInsert() throws Exception {
    try (ReplicaHarness h = new ReplicaHarness(dir)) {
      h.feed(ChangeMessages.after("0/100").begin(1).change(Tables.createItem()).insert(ITEM, item(1, "one"))
          .commit("0/200")
          .begin(2).update(ITEM, null, Row.of("id", Value.of(1), "price", Value.of("2.00")))
          .update(ITEM, null, Row.of("id", Value.of(9), "name", Value.of("new"))).commit("0/300").entries());
      assertEquals(List.of(List.of(1, "one", "2.00"), java.util.Arrays.asList(9, "new", null)),
          h.query("SELECT id, name, price FROM item ORDER BY id"));
    }
  }

  @Test
  void aKeyChangeMovesTheRow() throws Exception {
    try (ReplicaHarness h = new ReplicaHarness(dir)) {
      h.feed(ChangeMessages.after("0/100").begin(1).change(Tables.createItem()).insert(ITEM, item(1, "one"))
          .commit("0/200")
          .begin(2).update(ITEM, Row.of("id", Value.of(1)), Row.of("id", Value.of(5), "name", Value.of("one")))
          .commit("0/300").entries());
      assertEquals(List.of(List.of(5, "one")), h.query("SELECT id, name FROM item"));
    }
  }

  @Test
  void replicaIdentityFullUsesTheReplicasKeyAndTruncateEmpties() throws Exception {
    Relation full = new Relation("public", "item", new RowKey(List.of("id", "name", "price", "ok", "data", "tags"),
        ReplicaIdentity.FULL));
    try (ReplicaHarness h = new ReplicaHarness(dir)) {
      h.feed(ChangeMessages.after("0/100").begin(1).change(Tables.createItem()).insert(full, item(1, "one"))
          .insert(full, item(2, "two")).commit("0/200")
          .begin(2).delete(full, item(1, "one")).commit("0/300").entries());
      assertEquals(List.of(List.of(2)), h.query("SELECT id FROM item"));
      h.feed(ChangeMessages.after("0/300").begin(3).change(new DataChange.Truncate(List.of(ITEM))).commit("0/400")
          .entries());
      assertEquals(List.of(), h.query("SELECT id FROM item"));
    }
  }

  /** Batched upserts must keep stream order with deletes, updates and inserts into other tables. */
  @Test
  void batchedInsertsKeepStreamOrder() throws Exception {
    io.pg2lite.protocol.message.SchemaChange.CreateTable other = new io.pg2lite.protocol.message.SchemaChange.CreateTable(
        new io.pg2lite.protocol.schema.TableSpec("public", "other",
            java.util.Map.of("id", io.pg2lite.protocol.schema.ColumnSpec.of(1, "int8")), List.of("id")), null, null);
    Relation otherRel = new Relation("public", "other", RowKey.of("id"));
    try (ReplicaHarness h = new ReplicaHarness(dir)) {
      h.feed(ChangeMessages.after("0/100").begin(1).change(Tables.createItem()).change(other)
          .insert(ITEM, item(1, "first"))
          .delete(ITEM, Row.of("id", Value.of(1)))
          .insert(ITEM, item(1, "second"))
          .insert(otherRel, Row.of("id", Value.of(7)))
          .insert(ITEM, item(2, "two"))
          .update(ITEM, null, Row.of("id", Value.of(2), "name", Value.of("two-updated")))
          .insert(ITEM, item(3, "three"))
          .commit("0/200").entries());
      assertEquals(List.of(List.of(1, "second"), List.of(2, "two-updated"), List.of(3, "three")),
          h.query("SELECT id, name FROM item ORDER BY id"));
      assertEquals(List.of(List.of(7)), h.query("SELECT id FROM other"));
    }
  }

  @Test
  void aRolledBackTransactionLeavesNoBatchedRowBehind() throws Exception {
    try (ReplicaHarness h = new ReplicaHarness(dir)) {
      h.feed(ChangeMessages.after("0/100").begin(1).change(Tables.createItem()).insert(ITEM, item(1, "kept"))
          .commit("0/200").begin(2).insert(ITEM, item(2, "discarded")).rollback("restart")
          .begin(2).insert(ITEM, item(3, "kept")).commit("0/300").entries());
      assertEquals(List.of(List.of(1), List.of(3)), h.query("SELECT id FROM item ORDER BY id"));
    }
  }

  /** A table without a key (published for inserts only) takes inserts; an update of it fails clearly. */
  @Test
  void aKeylessTableTakesInserts() throws Exception {
    java.util.Map<String, io.pg2lite.protocol.schema.ColumnSpec> cols = new java.util.LinkedHashMap<>();
    cols.put("msg", io.pg2lite.protocol.schema.ColumnSpec.of(1, "text"));
    Relation events = new Relation("public", "events", new RowKey(List.of(), ReplicaIdentity.DEFAULT));
    try (ReplicaHarness h = new ReplicaHarness(dir)) {
      h.feed(ChangeMessages.after("0/100").begin(1)
          .change(new io.pg2lite.protocol.message.SchemaChange.CreateTable(
              new io.pg2lite.protocol.schema.TableSpec("public", "events", cols, null), null, null))
          .insert(events, Row.of("msg", Value.of("a"))).insert(events, Row.of("msg", Value.of("a")))
          .commit("0/200").entries());
      assertEquals(List.of(List.of("a"), List.of("a")), h.query("SELECT msg FROM events"), "duplicates are rows too");
      ApplyException e = org.junit.jupiter.api.Assertions.assertThrows(ApplyException.class,
          () -> h.feed(ChangeMessages.after("0/200").begin(2).update(events, null, Row.of("msg", Value.of("b")))
              .commit("0/300").entries()));
      org.junit.jupiter.api.Assertions.assertTrue(e.getMessage().contains("no row key"), e.getMessage());
    }
  }

  @Test
  void namesThatNeedQuotingReplicate() throws Exception {
    String evil = "a\"b; DROP TABLE x";
    java.util.Map<String, io.pg2lite.protocol.schema.ColumnSpec> cols = new java.util.LinkedHashMap<>();
    cols.put("k ey", io.pg2lite.protocol.schema.ColumnSpec.of(1, "text"));
    cols.put("v\"al", io.pg2lite.protocol.schema.ColumnSpec.of(2, "int4"));
    Relation r = new Relation("my schema", evil, RowKey.of("k ey"));
    try (ReplicaHarness h = new ReplicaHarness(dir)) {
      h.feed(ChangeMessages.after("0/100").begin(1)
          .change(new io.pg2lite.protocol.message.SchemaChange.CreateTable(
              new io.pg2lite.protocol.schema.TableSpec("my schema", evil, cols, List.of("k ey")), null, null))
          .insert(r, Row.of("k ey", Value.of("x"), "v\"al", Value.of(7))).commit("0/200").entries());
      assertEquals(List.of(List.of("x", 7)), h.query("SELECT \"k ey\", \"v\"\"al\" FROM \"my schema.a\"\"b; DROP TABLE x\""));
    }
  }
}
