package io.pg2lite.replica.apply;

import static org.junit.jupiter.api.Assertions.assertEquals;

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
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The backfill merge rule (ADR 0003), table-driven: each case is a setup, a message stream in log
 * order (each step one transaction: a live step names its commit LSN, a copy its snapshot LSN)
 * and the exact rows expected at the end. The rule: a copied value is written only where no
 * change committed after the snapshot wrote that column; a copy never brings back a row deleted,
 * or a table truncated, after its snapshot; a change committed at or before the snapshot yields
 * to the copy (the snapshot holds it). Key changes against copies are {@link KeyChangeMergeTest}'s.
 */
class BackfillMergeRuleTest {
  private static final Relation ITEM = new Relation("public", "item", RowKey.of("id"));
  private static final Relation BK = new Relation("public", "bk", RowKey.of("id"));

  @TempDir
  Path dir;

  private static long xid = 100;

  /** A case: {@code steps} after {@code setup}; {@code expected} are the rows of {@code query}, in order. */
  record Case(String name, UnaryOperator<ChangeMessages> setup, String query, List<UnaryOperator<ChangeMessages>> steps,
      List<List<Object>> expected) {
    @Override
    public String toString() {
      return name;
    }
  }

  private static UnaryOperator<ChangeMessages> tx(String commitLsn, UnaryOperator<ChangeMessages> changes) {
    return m -> changes.apply(m.begin(xid++)).commit(commitLsn);
  }

  /** A transaction that is rolled back (the source lost its connection inside it). */
  private static UnaryOperator<ChangeMessages> rolledBack(UnaryOperator<ChangeMessages> changes) {
    return m -> changes.apply(m.begin(xid++)).rollback("connection lost");
  }

  private static UnaryOperator<ChangeMessages> copy(String snapshotLsn, Relation r, List<String> columns,
      List<List<Value>> rows) {
    return m -> m.beginBackfill().change(new DataChange.Backfill(r, columns, Watermark.fromLsn(snapshotLsn), rows,
        null)).commitBackfill();
  }

  private static List<Value> vals(Object... values) {
    List<Value> out = new ArrayList<>();
    for (Object o : values) {
      out.add(o instanceof Integer i ? Value.of(i) : Value.of((String) o));
    }
    return out;
  }

  private static Row row(Object... namesAndValues) {
    Row.Builder b = Row.builder();
    for (int i = 0; i < namesAndValues.length; i += 2) {
      Object v = namesAndValues[i + 1];
      b.put((String) namesAndValues[i], v instanceof Integer n ? Value.of(n) : Value.of((String) v));
    }
    return b.build();
  }

  private static List<Object> rowOf(Object... values) {
    return Arrays.asList(values);
  }

  /**
   * item(id int4 key, v text) with rows (1, a) and (2, b), then {@code ADD COLUMN score} with a
   * backfill committed at 0/150: score is hidden and NULL until copied.
   */
  private static UnaryOperator<ChangeMessages> addedColumn() {
    Map<String, ColumnSpec> cols = new LinkedHashMap<>();
    cols.put("id", ColumnSpec.of(1, "int4"));
    cols.put("v", ColumnSpec.of(2, "text"));
    return m -> {
      tx("0/100", n -> n.change(new SchemaChange.CreateTable(new TableSpec("public", "item", cols, List.of("id")),
          new TableMetadata(2200, 1, Map.of("id", 1)), null))
          .insert(ITEM, row("id", 1, "v", "a")).insert(ITEM, row("id", 2, "v", "b"))).apply(m);
      return tx("0/150", n -> n.change(new SchemaChange.AddColumn(new QualifiedName("public", "item"),
          new Column("score", ColumnSpec.of(3, "int4")), null, new BackfillId(3)))).apply(m);
    };
  }

  /** copies score of item from a snapshot at {@code snapshotLsn}: rows of [id, score]. */
  private static UnaryOperator<ChangeMessages> copyScore(String snapshotLsn, List<List<Value>> rows) {
    return copy(snapshotLsn, ITEM, List.of("score"), rows);
  }

  private static Case scoreCase(String name, List<UnaryOperator<ChangeMessages>> steps, List<List<Object>> expected) {
    return new Case(name, addedColumn(), "SELECT id, v, score FROM item ORDER BY id", steps, expected);
  }

  /** bk(id int4 key, v text), published with existing rows at 0/100: every column is being backfilled. */
  private static UnaryOperator<ChangeMessages> newTable() {
    Map<String, ColumnSpec> cols = new LinkedHashMap<>();
    cols.put("id", ColumnSpec.of(1, "int4"));
    cols.put("v", ColumnSpec.of(2, "text"));
    return tx("0/100", m -> m.change(new SchemaChange.CreateTable(new TableSpec("public", "bk", cols, List.of("id")),
        new TableMetadata(2200, 2, Map.of("id", 1)), Map.of("id", new BackfillId(1), "v", new BackfillId(2)))));
  }

  private static Case tableCase(String name, List<UnaryOperator<ChangeMessages>> steps, List<List<Object>> expected) {
    // bk is copied whole and no case completes its copy: its rows are under the copying name.
    return new Case(name, newTable(), "SELECT id, v FROM " + SqlNames.quote(SqlNames.copying("bk")) + " ORDER BY id",
        steps, expected);
  }

  static Stream<Case> cases() {
    List<List<Value>> copy12 = List.of(vals(1, 10), vals(2, 20));
    return Stream.of(
        scoreCase("no live change since the column was added: the copy writes every row",
            List.of(copyScore("0/400", copy12)),
            List.of(rowOf(1, "a", 10), rowOf(2, "b", 20))),
        scoreCase("an update committed after the snapshot keeps its value, though its pre-commit watermark is older",
            List.of(tx("0/500", m -> m.update(ITEM, null, row("id", 1, "v", "a", "score", 100))),
                copyScore("0/400", copy12)),
            List.of(rowOf(1, "a", 100), rowOf(2, "b", 20))),
        scoreCase("an update committed before the snapshot yields to the copy",
            List.of(tx("0/300", m -> m.update(ITEM, null, row("id", 1, "v", "a", "score", 5))),
                copyScore("0/400", copy12)),
            List.of(rowOf(1, "a", 10), rowOf(2, "b", 20))),
        scoreCase("an update committed at the snapshot's own LSN yields: the snapshot holds it",
            List.of(tx("0/400", m -> m.update(ITEM, null, row("id", 1, "v", "a", "score", 5))),
                copyScore("0/400", copy12)),
            List.of(rowOf(1, "a", 10), rowOf(2, "b", 20))),
        scoreCase("an update after the snapshot that leaves the column out does not protect it",
            List.of(tx("0/500", m -> m.update(ITEM, null, row("id", 1, "v", "z"))), copyScore("0/400", copy12)),
            List.of(rowOf(1, "z", 10), rowOf(2, "b", 20))),
        scoreCase("two updates in one transaction after the snapshot: the column one wrote stays",
            List.of(tx("0/500", m -> m.update(ITEM, null, row("id", 1, "score", 7))
                .update(ITEM, null, row("id", 1, "v", "q"))), copyScore("0/400", copy12)),
            List.of(rowOf(1, "q", 7), rowOf(2, "b", 20))),
        scoreCase("a rolled-back update protects nothing",
            List.of(rolledBack(m -> m.update(ITEM, null, row("id", 1, "v", "a", "score", 100))),
                copyScore("0/400", copy12)),
            List.of(rowOf(1, "a", 10), rowOf(2, "b", 20))),
        scoreCase("a row deleted after the snapshot is not brought back",
            List.of(tx("0/500", m -> m.delete(ITEM, row("id", 2))), copyScore("0/400", copy12)),
            List.of(rowOf(1, "a", 10))),
        scoreCase("a row deleted and inserted again before the snapshot takes the copy",
            List.of(tx("0/300", m -> m.delete(ITEM, row("id", 2))),
                tx("0/350", m -> m.insert(ITEM, row("id", 2, "v", "b2", "score", 21))),
                copyScore("0/400", copy12)),
            List.of(rowOf(1, "a", 10), rowOf(2, "b2", 20))),
        scoreCase("a row inserted after the snapshot keeps its value",
            List.of(tx("0/500", m -> m.insert(ITEM, row("id", 3, "v", "c", "score", 3))),
                copyScore("0/400", List.of(vals(1, 10), vals(2, 20), vals(3, 30)))),
            List.of(rowOf(1, "a", 10), rowOf(2, "b", 20), rowOf(3, "c", 3))),
        scoreCase("truncated after the snapshot: the copy writes no row",
            List.of(tx("0/500", m -> m.change(new DataChange.Truncate(List.of(ITEM)))),
                tx("0/550", m -> m.insert(ITEM, row("id", 3, "v", "c", "score", 3))), copyScore("0/400", copy12)),
            List.of(rowOf(3, "c", 3))),
        scoreCase("truncated before the snapshot: the copy applies",
            List.of(tx("0/300", m -> m.change(new DataChange.Truncate(List.of(ITEM)))),
                tx("0/350", m -> m.insert(ITEM, row("id", 1, "v", "a2", "score", 1))),
                copyScore("0/400", List.of(vals(1, 10)))),
            List.of(rowOf(1, "a2", 10))),
        scoreCase("a copy in two messages with a newer update between them",
            List.of(copyScore("0/400", List.of(vals(1, 10))),
                tx("0/500", m -> m.update(ITEM, null, row("id", 2, "v", "b", "score", 200))),
                copyScore("0/400", List.of(vals(2, 20)))),
            List.of(rowOf(1, "a", 10), rowOf(2, "b", 200))),
        scoreCase("a change after the copy overwrites it, as any later change does",
            List.of(copyScore("0/400", copy12), tx("0/500", m -> m.update(ITEM, null, row("id", 1, "score", 11)))),
            List.of(rowOf(1, "a", 11), rowOf(2, "b", 20))),
        tableCase("a new table: the copy inserts the rows the replica lacks and leaves newer live rows",
            List.of(tx("0/500", m -> m.insert(BK, row("id", 5, "v", "live"))),
                copy("0/400", BK, List.of("v"), List.of(vals(1, "pre"), vals(5, "old")))),
            List.of(rowOf(1, "pre"), rowOf(5, "live"))),
        tableCase("a new table: a row deleted after the snapshot is not brought back",
            List.of(tx("0/200", m -> m.insert(BK, row("id", 7, "v", "x"))),
                tx("0/300", m -> m.delete(BK, row("id", 7))), copy("0/250", BK, List.of("v"), List.of(vals(7, "x")))),
            List.of()),
        tableCase("a new table: a live insert older than the snapshot yields to the copy",
            List.of(tx("0/200", m -> m.insert(BK, row("id", 7, "v", "x"))),
                copy("0/250", BK, List.of("v"), List.of(vals(7, "y")))),
            List.of(rowOf(7, "y"))));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("cases")
  void mergeRule(Case c) throws Exception {
    try (ReplicaHarness h = new ReplicaHarness(dir)) {
      ChangeMessages m = ChangeMessages.after("0/50");
      c.setup().apply(m);
      for (UnaryOperator<ChangeMessages> step : c.steps()) {
        step.apply(m);
      }
      h.feed(m.entries());
      assertEquals(c.expected(), h.query(c.query()), c.name());
    }
  }
}
