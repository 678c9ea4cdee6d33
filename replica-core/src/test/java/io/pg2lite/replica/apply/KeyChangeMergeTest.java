package io.pg2lite.replica.apply;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pg2lite.protocol.message.DataChange;
import io.pg2lite.protocol.message.SchemaChange;
import io.pg2lite.protocol.schema.BackfillId;
import io.pg2lite.protocol.schema.Column;
import io.pg2lite.protocol.schema.ColumnSpec;
import io.pg2lite.protocol.schema.QualifiedName;
import io.pg2lite.protocol.schema.Relation;
import io.pg2lite.protocol.schema.RowKey;
import io.pg2lite.protocol.schema.TableMetadata;
import io.pg2lite.protocol.schema.TableSpec;
import io.pg2lite.protocol.testing.ChangeMessages;
import io.pg2lite.protocol.value.Row;
import io.pg2lite.protocol.value.Value;
import io.pg2lite.protocol.watermark.Watermark;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import io.pg2lite.replica.lite.SqlNames;
import java.util.List;
import java.util.Map;
import java.util.function.UnaryOperator;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Key-changing updates against backfill copies (issue 10, defect 4), table-driven: a setup, a
 * message stream in log order (each step one transaction; a main-stream step names its commit
 * LSN, a copy its snapshot LSN), the rows expected at the end, which are what Postgres held at
 * the last step. A copy can be ahead of the live stream (its snapshot is newer than changes still
 * to be replayed) or behind it; a key change must delete the old key and merge into the new one
 * either way, never fail on the key index, bring back a deleted row, or overwrite a copied value
 * with an older one.
 */
class KeyChangeMergeTest {
  private static final QualifiedName BK_NAME = new QualifiedName("public", "bk");
  private static final Relation BK = new Relation("public", "bk", RowKey.of("id"));
  private static final Relation BK2 = new Relation("public", "bk2", RowKey.of("a", "b"));
  /** Where the rows of bk and bk2 are while they are copied whole (no backfill-completed here). */
  private static final String COPYING_BK = SqlNames.quote(SqlNames.copying("bk"));
  private static final String COPYING_BK2 = SqlNames.quote(SqlNames.copying("bk2"));

  @TempDir
  Path dir;

  private static long xid = 10;

  /** One transaction of the log. */
  private static UnaryOperator<ChangeMessages> tx(String commitLsn, UnaryOperator<ChangeMessages> changes) {
    return m -> changes.apply(m.begin(xid++)).commit(commitLsn);
  }

  private static UnaryOperator<ChangeMessages> insert(String lsn, Relation r, Row row) {
    return tx(lsn, m -> m.insert(r, row));
  }

  private static UnaryOperator<ChangeMessages> move(String lsn, Relation r, Row oldKey, Row row) {
    return tx(lsn, m -> m.update(r, oldKey, row));
  }

  private static UnaryOperator<ChangeMessages> delete(String lsn, Relation r, Row key) {
    return tx(lsn, m -> m.delete(r, key));
  }

  private static UnaryOperator<ChangeMessages> truncate(String lsn, Relation r) {
    return tx(lsn, m -> m.change(new DataChange.Truncate(List.of(r))));
  }

  /** A backfill transaction copying {@code columns} (after the key) from a snapshot at {@code snapshotLsn}. */
  private static UnaryOperator<ChangeMessages> copy(String snapshotLsn, Relation r, List<String> columns,
      List<List<Value>> rows) {
    return m -> m.beginBackfill().change(new DataChange.Backfill(r, columns, Watermark.fromLsn(snapshotLsn), rows,
        null)).commitBackfill();
  }

  private static Row bk(int id, String v) {
    return Row.of("id", Value.of(id), "v", Value.of(v));
  }

  private static Row id(int id) {
    return Row.of("id", Value.of(id));
  }

  private static List<Value> vals(Object... values) {
    List<Value> out = new ArrayList<>();
    for (Object o : values) {
      out.add(o instanceof Integer i ? Value.of(i) : Value.of((String) o));
    }
    return out;
  }

  private static List<Object> rowOf(Object... values) {
    return Arrays.asList(values);
  }

  /** bk(id int4 key, v text), published with existing rows: every column is being backfilled. */
  private static UnaryOperator<ChangeMessages> newTable() {
    Map<String, ColumnSpec> cols = new LinkedHashMap<>();
    cols.put("id", ColumnSpec.of(1, "int4"));
    cols.put("v", ColumnSpec.of(2, "text"));
    return tx("0/100", m -> m.change(new SchemaChange.CreateTable(new TableSpec("public", "bk", cols, List.of("id")),
        new TableMetadata(2200, 1, Map.of("id", 1)), Map.of("id", new BackfillId(1), "v", new BackfillId(2)))));
  }

  private static UnaryOperator<ChangeMessages> copyBk(String snapshotLsn, List<List<Value>> rows) {
    return copy(snapshotLsn, BK, List.of("v"), rows);
  }

  static Stream<Arguments> newTableCases() {
    return Stream.of(
        Arguments.of("the repro: a copy of a snapshot taken after the move arrives before it",
            List.of(insert("0/200", BK, bk(10, "live")), copyBk("0/400", List.of(vals(1, "pre"), vals(11, "live"))),
                move("0/300", BK, id(10), bk(11, "live"))),
            List.of(rowOf(1, "pre"), rowOf(11, "live"))),
        Arguments.of("the copy holds a value newer than the move's; the change that wrote it follows",
            List.of(insert("0/200", BK, bk(10, "a")), copyBk("0/500", List.of(vals(11, "b"))),
                move("0/300", BK, id(10), bk(11, "a")), move("0/400", BK, null, bk(11, "b"))),
            List.of(rowOf(11, "b"))),
        Arguments.of("the copied value is kept, never overwritten by the older move",
            List.of(insert("0/200", BK, bk(10, "a")), copyBk("0/500", List.of(vals(11, "b"))),
                move("0/300", BK, id(10), bk(11, "a"))),
            List.of(rowOf(11, "b"))),
        Arguments.of("a copy of a snapshot before the move arrives after it: the old key stays deleted",
            List.of(insert("0/200", BK, bk(10, "live")), move("0/300", BK, id(10), bk(11, "live")),
                copyBk("0/250", List.of(vals(10, "live")))),
            List.of(rowOf(11, "live"))),
        Arguments.of("moved and moved back, the copy in between",
            List.of(insert("0/200", BK, bk(10, "x")), copyBk("0/350", List.of(vals(11, "x"))),
                move("0/300", BK, id(10), bk(11, "x")), move("0/400", BK, id(11), bk(10, "y"))),
            List.of(rowOf(10, "y"))),
        Arguments.of("moved and moved back, the copy after both",
            List.of(insert("0/200", BK, bk(10, "x")), copyBk("0/450", List.of(vals(10, "y"))),
                move("0/300", BK, id(10), bk(11, "x")), move("0/400", BK, id(11), bk(10, "y"))),
            List.of(rowOf(10, "y"))),
        Arguments.of("moved and moved back, the copy of a snapshot in between arrives last",
            List.of(insert("0/200", BK, bk(10, "x")), move("0/300", BK, id(10), bk(11, "x")),
                move("0/400", BK, id(11), bk(10, "y")), copyBk("0/350", List.of(vals(11, "x")))),
            List.of(rowOf(10, "y"))),
        Arguments.of("moved then deleted, the copy in between",
            List.of(insert("0/200", BK, bk(10, "x")), copyBk("0/350", List.of(vals(11, "x"))),
                move("0/300", BK, id(10), bk(11, "x")), delete("0/400", BK, id(11))),
            List.of()),
        Arguments.of("moved then deleted, the copy after both holds neither key",
            List.of(insert("0/200", BK, bk(10, "x")), copyBk("0/450", List.of(vals(1, "pre"))),
                move("0/300", BK, id(10), bk(11, "x")), delete("0/400", BK, id(11))),
            List.of(rowOf(1, "pre"))),
        Arguments.of("moved then deleted, the copy of a snapshot before both arrives last",
            List.of(insert("0/200", BK, bk(10, "x")), move("0/300", BK, id(10), bk(11, "x")),
                delete("0/400", BK, id(11)), copyBk("0/250", List.of(vals(10, "x")))),
            List.of()),
        Arguments.of("two moves in one transaction, the copy first",
            List.of(insert("0/200", BK, bk(10, "x")), copyBk("0/450", List.of(vals(12, "x"))),
                tx("0/300", m -> m.update(BK, id(10), bk(11, "x")).update(BK, id(11), bk(12, "x")))),
            List.of(rowOf(12, "x"))),
        Arguments.of("truncated after the copy's snapshot: the copy arriving later writes nothing",
            List.of(insert("0/200", BK, bk(10, "x")), truncate("0/300", BK), insert("0/350", BK, bk(12, "z")),
                copyBk("0/250", List.of(vals(1, "pre"), vals(10, "x")))),
            List.of(rowOf(12, "z"))),
        Arguments.of("truncated before the copy's snapshot: the copy applies",
            List.of(insert("0/200", BK, bk(10, "x")), truncate("0/300", BK), insert("0/350", BK, bk(10, "y")),
                copyBk("0/500", List.of(vals(11, "y"))), move("0/400", BK, id(10), bk(11, "y"))),
            List.of(rowOf(11, "y"))),
        Arguments.of("the copy ahead of a truncate and a move that follow it",
            List.of(insert("0/200", BK, bk(10, "x")), copyBk("0/500", List.of(vals(11, "y"))),
                truncate("0/300", BK), insert("0/350", BK, bk(10, "y")), move("0/400", BK, id(10), bk(11, "y"))),
            List.of(rowOf(11, "y"))));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("newTableCases")
  void newlyPublishedTable(String name, List<UnaryOperator<ChangeMessages>> steps, List<List<Object>> expected)
      throws Exception {
    assertEquals(expected, run(newTable(), steps, "SELECT id, v FROM " + COPYING_BK + " ORDER BY id"), name);
  }

  /**
   * bk(id key, v, doc) replicated with rows 1 and 10, then {@code ALTER TABLE bk ADD COLUMN ts
   * timestamptz DEFAULT now()}: ts is backfilled, the other columns stream as before.
   */
  private static UnaryOperator<ChangeMessages> addedColumn() {
    Map<String, ColumnSpec> cols = new LinkedHashMap<>();
    cols.put("id", ColumnSpec.of(1, "int4"));
    cols.put("v", ColumnSpec.of(2, "text"));
    cols.put("doc", ColumnSpec.of(3, "text"));
    return m -> {
      tx("0/100", n -> n.change(new SchemaChange.CreateTable(new TableSpec("public", "bk", cols, List.of("id")),
          new TableMetadata(2200, 1, Map.of("id", 1)), null))
          .insert(BK, Row.of("id", Value.of(1), "v", Value.of("pre"), "doc", Value.of("D1")))
          .insert(BK, Row.of("id", Value.of(10), "v", Value.of("live"), "doc", Value.of("D10")))).apply(m);
      return tx("0/150", n -> n.change(new SchemaChange.AddColumn(BK_NAME,
          new Column("ts", ColumnSpec.of(4, "timestamptz")), null, new BackfillId(4)))).apply(m);
    };
  }

  private static final String T0 = "2026-01-02T03:04:05.5Z";

  static Stream<Arguments> addedColumnCases() {
    UnaryOperator<ChangeMessages> copyTs = copy("0/400", BK, List.of("ts"), List.of(vals(1, T0), vals(11, T0)));
    return Stream.of(
        Arguments.of("the repro: the copy of ts, taken after the move, arrives before it",
            List.of(copyTs, move("0/300", BK, id(10), Row.of("id", Value.of(11), "v", Value.of("live"),
                "doc", Value.of("D10"), "ts", Value.of(T0)))),
            List.of(rowOf(1, "pre", "D1", T0), rowOf(11, "live", "D10", T0))),
        Arguments.of("a move leaving out an unchanged TOASTed column takes it from the old row",
            List.of(copyTs, move("0/300", BK, id(10), Row.of("id", Value.of(11), "v", Value.of("live"),
                "ts", Value.of(T0)))),
            List.of(rowOf(1, "pre", "D1", T0), rowOf(11, "live", "D10", T0))),
        Arguments.of("the copy after the move and a later update",
            List.of(move("0/300", BK, id(10), Row.of("id", Value.of(11), "v", Value.of("live"), "doc", Value.of("D10"),
                "ts", Value.of(T0))), copyTs),
            List.of(rowOf(1, "pre", "D1", T0), rowOf(11, "live", "D10", T0))));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("addedColumnCases")
  void columnAddedWithAVolatileDefault(String name, List<UnaryOperator<ChangeMessages>> steps,
      List<List<Object>> expected) throws Exception {
    assertEquals(expected, run(addedColumn(), steps, "SELECT id, v, doc, ts FROM bk ORDER BY id"), name);
  }

  /** bk2(a, b, v), primary key (a, b), newly published. */
  private static UnaryOperator<ChangeMessages> compositeTable() {
    Map<String, ColumnSpec> cols = new LinkedHashMap<>();
    cols.put("a", ColumnSpec.of(1, "int4"));
    cols.put("b", ColumnSpec.of(2, "int4"));
    cols.put("v", ColumnSpec.of(3, "text"));
    return tx("0/100", m -> m.change(new SchemaChange.CreateTable(new TableSpec("public", "bk2", cols,
        List.of("a", "b")), new TableMetadata(2200, 2, Map.of("a", 1, "b", 2)),
        Map.of("a", new BackfillId(1), "b", new BackfillId(2), "v", new BackfillId(3)))));
  }

  private static Row bk2(int a, int b, String v) {
    return Row.of("a", Value.of(a), "b", Value.of(b), "v", Value.of(v));
  }

  private static Row ab(int a, int b) {
    return Row.of("a", Value.of(a), "b", Value.of(b));
  }

  static Stream<Arguments> compositeKeyCases() {
    return Stream.of(
        Arguments.of("the repro on a composite key: one key column changes",
            List.of(insert("0/200", BK2, bk2(1, 1, "live")),
                copy("0/400", BK2, List.of("v"), List.of(vals(1, 2, "live"), vals(2, 2, "pre"))),
                move("0/300", BK2, ab(1, 1), bk2(1, 2, "live"))),
            List.of(rowOf(1, 2, "live"), rowOf(2, 2, "pre"))),
        Arguments.of("both key columns change, then back, the copy in between",
            List.of(insert("0/200", BK2, bk2(1, 1, "x")), copy("0/350", BK2, List.of("v"), List.of(vals(2, 3, "x"))),
                move("0/300", BK2, ab(1, 1), bk2(2, 3, "x")), move("0/400", BK2, ab(2, 3), bk2(1, 1, "y"))),
            List.of(rowOf(1, 1, "y"))),
        Arguments.of("a copy older than the move: the old key is not brought back",
            List.of(insert("0/200", BK2, bk2(1, 1, "x")), move("0/300", BK2, ab(1, 1), bk2(1, 2, "x")),
                copy("0/250", BK2, List.of("v"), List.of(vals(1, 1, "x")))),
            List.of(rowOf(1, 2, "x"))));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("compositeKeyCases")
  void compositeKey(String name, List<UnaryOperator<ChangeMessages>> steps, List<List<Object>> expected)
      throws Exception {
    assertEquals(expected, run(compositeTable(), steps, "SELECT a, b, v FROM " + COPYING_BK2 + " ORDER BY a, b"), name);
  }

  /**
   * A move onto a row the live stream itself wrote: Postgres held two rows with one key (only a
   * deferrable key allows it). The replica cannot, and refuses rather than lose a row.
   */
  @Test
  void aMoveOntoALiveRowIsRefused() throws Exception {
    int i = 0;
    for (UnaryOperator<ChangeMessages> setup : List.of(newTable(), tx("0/100", m -> m.change(
        new SchemaChange.CreateTable(new TableSpec("public", "bk", Map.of("id", ColumnSpec.of(1, "int4"), "v",
            ColumnSpec.of(2, "text")), List.of("id")), new TableMetadata(2200, 1, Map.of("id", 1)), null))))) {
      try (ReplicaHarness h = new ReplicaHarness(java.nio.file.Files.createDirectories(dir.resolve("r" + i++)))) {
        ChangeMessages m = ChangeMessages.after("0/50");
        setup.apply(m);
        insert("0/200", BK, bk(1, "a")).apply(m);
        insert("0/250", BK, bk(2, "b")).apply(m);
        h.feed(m.entries());
        List<io.pg2lite.protocol.message.ChangeLogEntry> before = m.entries();
        move("0/300", BK, id(1), bk(2, "a")).apply(m);
        List<io.pg2lite.protocol.message.ChangeLogEntry> all = m.entries();
        ApplyException e = assertThrows(ApplyException.class, () -> h.feed(all.subList(before.size(), all.size())));
        assertTrue(e.getMessage().contains("deferrable"), e.getMessage());
        assertEquals(List.of(rowOf(1, "a"), rowOf(2, "b")), h.query("SELECT id, v FROM "
            + (i == 1 ? COPYING_BK : "bk") + " ORDER BY id")); // the first setup copies bk whole
      }
    }
  }

  private List<List<Object>> run(UnaryOperator<ChangeMessages> setup, List<UnaryOperator<ChangeMessages>> steps,
      String query) throws Exception {
    try (ReplicaHarness h = new ReplicaHarness(dir)) {
      ChangeMessages m = ChangeMessages.after("0/50");
      setup.apply(m);
      for (UnaryOperator<ChangeMessages> step : steps) {
        step.apply(m);
      }
      h.feed(m.entries());
      return h.query(query);
    }
  }
}
