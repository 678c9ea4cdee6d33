package io.pg2lite.source.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pg2lite.protocol.message.ChangeLogEntry;
import io.pg2lite.protocol.message.DataChange;
import io.pg2lite.protocol.message.Message;
import io.pg2lite.protocol.message.SchemaChange;
import io.pg2lite.protocol.schema.Relation;
import io.pg2lite.protocol.value.Row;
import io.pg2lite.protocol.value.Value;
import io.pg2lite.testkit.TestStack;
import io.pg2lite.testkit.TestStackExtension;
import io.pg2lite.testkit.support.Await;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Rows are decoded with their table as it was when they were written, not as it is when the
 * source reads them (issue 10, defect 3). Every test lets the source lag behind the DDL: it is
 * stopped while rows and then a type change are committed, and reads both only when it starts
 * again (a restart with the old-typed rows still in the slot's backlog).
 */
@ExtendWith(TestStackExtension.class)
class TypeChangesIT {
  private static final Duration WAIT = Duration.ofSeconds(90);

  /** The repro: a jsonb column retyped to numeric right after an insert. */
  @Test
  void aRetypeRightAfterAnInsertDecodesTheInsertWithTheOldType(TestStack stack) throws Exception {
    try (SourceFixture f = new SourceFixture(stack, "tc_repro")) {
      f.db.execute("CREATE TABLE other (id bigint PRIMARY KEY)", "CREATE PUBLICATION tc_repro_pub FOR TABLE other");
      startThenStop(f);
      f.db.execute("CREATE TABLE ty (id bigint PRIMARY KEY, a jsonb)",
          "ALTER PUBLICATION tc_repro_pub ADD TABLE ty",
          "INSERT INTO ty VALUES (1, '{}')",
          "ALTER TABLE ty ALTER COLUMN a TYPE numeric USING NULL",
          "INSERT INTO ty VALUES (2, 1.50)");
      f.start();
      List<String> applied = awaitApplied(f, "insert ty {id=2, a=\"1.50\"}");
      assertEquals(List.of(
          "create-table ty",
          "insert ty {id=1, a=\"{}\"}",
          "drop-column ty.a",
          "add-column ty.a numeric, backfilled",
          "insert ty {id=2, a=\"1.50\"}"), withoutIndexes(applied));
    }
  }

  /** timestamptz -> text, text -> timestamptz USING, int[] -> text and SET NOT NULL, each right after DML. */
  @Test
  void retypesDecodeEveryRowWithTheTypeItWasWrittenWith(TestStack stack) throws Exception {
    try (SourceFixture f = new SourceFixture(stack, "tc_retype")) {
      f.db.execute("CREATE TABLE rt (id bigint PRIMARY KEY, ts timestamptz, tx text, arr int[], nn text)",
          "CREATE PUBLICATION tc_retype_pub FOR TABLE rt");
      startThenStop(f);
      f.db.execute("SET TIME ZONE 'UTC'",
          "INSERT INTO rt VALUES (1, '2025-01-02 03:04:05.123456+00', 'hello', '{1,2}', NULL)",
          "ALTER TABLE rt ALTER COLUMN ts TYPE text",
          "UPDATE rt SET tx = 'world' WHERE id = 1",
          "ALTER TABLE rt ALTER COLUMN tx TYPE timestamptz USING '2020-01-01 00:00:00+00'",
          "INSERT INTO rt VALUES (2, 'not a time', '2021-06-01 00:00:00+00', '{3,NULL}', NULL)",
          "ALTER TABLE rt ALTER COLUMN arr TYPE text",
          "UPDATE rt SET nn = 'x'",
          "ALTER TABLE rt ALTER COLUMN nn SET NOT NULL",
          "INSERT INTO rt VALUES (3, 't3', '2022-01-01 00:00:00+00', 'plain', 'y')");
      f.start();
      List<String> rows = withoutIndexes(
          awaitApplied(f, "insert rt {id=3, ts=\"t3\", tx=\"2022-01-01T00:00:00Z\", arr=\"plain\", nn=\"y\"}"));
      assertEquals(List.of(
          "insert rt {id=1, ts=\"2025-01-02T03:04:05.123456Z\", tx=\"hello\", arr=[1, 2], nn=null}",
          "drop-column rt.ts",
          "add-column rt.ts text, backfilled",
          "update rt - {id=1, ts=\"2025-01-02 03:04:05.123456+00\", tx=\"world\", arr=[1, 2], nn=null}",
          "drop-column rt.tx",
          "add-column rt.tx timestamptz, backfilled",
          "insert rt {id=2, ts=\"not a time\", tx=\"2021-06-01T00:00:00Z\", arr=[3, null], nn=null}",
          "drop-column rt.arr",
          "add-column rt.arr text, backfilled",
          "update rt - {id=1, ts=\"2025-01-02 03:04:05.123456+00\", tx=\"2020-01-01T00:00:00Z\", arr=\"{1,2}\", nn=\"x\"}",
          "update rt - {id=2, ts=\"not a time\", tx=\"2021-06-01T00:00:00Z\", arr=\"{3,NULL}\", nn=\"x\"}",
          "update-column rt.nn text -> text",
          "insert rt {id=3, ts=\"t3\", tx=\"2022-01-01T00:00:00Z\", arr=\"plain\", nn=\"y\"}"), rows);
    }
  }

  /**
   * An enum column retyped to text and its enum dropped before the source read the rows: the
   * catalog no longer knows the old type, and the old rows still arrive as their labels.
   */
  @Test
  void aRowOfADroppedEnumArrivesAsItsLabel(TestStack stack) throws Exception {
    try (SourceFixture f = new SourceFixture(stack, "tc_enum")) {
      f.db.execute("CREATE TYPE mood AS ENUM ('sad', 'happy')", "CREATE TABLE t (id bigint PRIMARY KEY, m mood)",
          "CREATE PUBLICATION tc_enum_pub FOR TABLE t");
      startThenStop(f);
      f.db.execute("INSERT INTO t VALUES (1, 'happy')",
          "BEGIN; ALTER TABLE t ALTER COLUMN m TYPE text; DROP TYPE mood; COMMIT",
          "INSERT INTO t VALUES (2, 'x')");
      f.start();
      assertEquals(List.of(
          "insert t {id=1, m=\"happy\"}",
          "drop-column t.m",
          "add-column t.m text, backfilled",
          "insert t {id=2, m=\"x\"}"), withoutIndexes(awaitApplied(f, "insert t {id=2, m=\"x\"}")));
    }
  }

  /**
   * A table dropped and created again under its name with other column types: the old table's
   * rows keep its types, whether the new table is published or not.
   */
  @Test
  void aTableRecreatedUnderItsNameKeepsTheOldRowsTypes(TestStack stack) throws Exception {
    try (SourceFixture f = new SourceFixture(stack, "tc_recreate")) {
      f.db.execute("CREATE TABLE pub (id bigint PRIMARY KEY, v jsonb)",
          "CREATE TABLE unpub (id bigint PRIMARY KEY, v jsonb)",
          "CREATE PUBLICATION tc_recreate_pub FOR TABLE pub, unpub");
      startThenStop(f);
      f.db.execute("INSERT INTO pub VALUES (1, '{\"k\": 1}')",
          "INSERT INTO unpub VALUES (1, '[1]'), (2, '[2]')",
          "DELETE FROM unpub WHERE id = 2",
          "DROP TABLE pub",
          "CREATE TABLE pub (id text PRIMARY KEY, v numeric)",
          "ALTER PUBLICATION tc_recreate_pub ADD TABLE pub",
          "DROP TABLE unpub",
          "CREATE TABLE unpub (id text PRIMARY KEY, v timestamptz)",
          "INSERT INTO unpub VALUES ('y', now())",
          "INSERT INTO pub VALUES ('x', 2.50)");
      f.start();
      List<String> applied = withoutIndexes(awaitApplied(f, "insert pub {id=\"x\", v=\"2.50\"}"));
      assertEquals(List.of(
          "insert pub {id=1, v=\"{\\\"k\\\": 1}\"}",
          "insert unpub {id=1, v=\"[1]\"}",
          "insert unpub {id=2, v=\"[2]\"}",
          "delete unpub {id=2}",
          "drop-table pub",
          "create-table pub",
          "drop-table unpub",
          "insert pub {id=\"x\", v=\"2.50\"}"), applied);
    }
  }

  /**
   * The source restarts while the slot still holds old-typed rows it has not (all) read: after
   * the restart it decodes them exactly as before, and the log replays to every row once.
   */
  @Test
  void aRestartInTheOldTypedBacklogDecodesItTheSameWay(TestStack stack) throws Exception {
    try (SourceFixture f = new SourceFixture(stack, "tc_restart")) {
      f.db.execute("CREATE TABLE rb (id bigint PRIMARY KEY, a jsonb)", "CREATE PUBLICATION tc_restart_pub FOR TABLE rb");
      startThenStop(f);
      int transactions = 40;
      int perTransaction = 2000;
      for (int t = 0; t < transactions; t++) {
        f.db.execute("INSERT INTO rb SELECT g, jsonb_build_object('n', g) FROM generate_series("
            + (t * perTransaction + 1) + ", " + ((t + 1) * perTransaction) + ") g");
      }
      int old = transactions * perTransaction;
      f.db.execute("ALTER TABLE rb ALTER COLUMN a TYPE numeric USING (a->>'n')::numeric / 4",
          "INSERT INTO rb SELECT g, g / 4.0 FROM generate_series(" + (old + 1) + ", " + (old + perTransaction) + ") g");
      f.start();
      Await.until("part of the backlog written", WAIT, () -> f.awaitEntries(1, Duration.ofMillis(200)).size() > 100);
      boolean alterReadBeforeRestart = ReplayRule.appliedChanges(f.entries()).stream()
          .anyMatch(m -> m instanceof SchemaChange.AddColumn);
      stack.connect().rest().restart(f.name);
      stack.connect().rest().awaitRunning(f.name, WAIT);
      int total = old + perTransaction;
      Map<Long, Value> values = Await.value("every row in the log", WAIT, () -> {
        Map<Long, Value> v = insertedValues(f.awaitEntries(1, Duration.ofMillis(500)), "a");
        return v.size() >= total ? v : null;
      });
      assertTrue(!alterReadBeforeRestart, "the restart came after the backlog was read: the test proves nothing");
      assertEquals(total, values.size());
      for (long id = 1; id <= total; id++) {
        Value expected = id <= old ? Value.of("{\"n\": " + id + "}")
            : Value.of(new java.math.BigDecimal(id).divide(java.math.BigDecimal.valueOf(4), 20,
                java.math.RoundingMode.UNNECESSARY).stripTrailingZeros().toPlainString());
        assertEquals(expected.getClass(), values.get(id).getClass(), "row " + id);
        if (id <= old) {
          assertEquals(expected, values.get(id), "row " + id);
        } else {
          assertEquals(0, new java.math.BigDecimal(((Value.Text) expected).value())
              .compareTo(new java.math.BigDecimal(((Value.Text) values.get(id)).value())), "row " + id);
        }
      }
    }
  }

  /**
   * A restart behind a key change and a rename (fuzz seed 3015): the rows written before them are
   * keyed as the table was then. Today's catalog has no table "kc" any more and a two-column key;
   * the source resumes with the schema of its stored position (the schema history topic, ADR 0028).
   */
  @org.junit.jupiter.params.ParameterizedTest(name = "DDL by {0}")
  @org.junit.jupiter.params.provider.ValueSource(strings = {"event-triggers", "replication-stream"})
  void aRestartBehindAKeyChangeAndARenameKeysOldRowsAsTheTableWasThen(String detection, TestStack stack)
      throws Exception {
    String name = detection.equals("event-triggers") ? "tc_rekey" : "tc_rekey_rs";
    try (SourceFixture f = new SourceFixture(stack, name)) {
      f.db.execute("CREATE TABLE kc (id bigint PRIMARY KEY, v text)", "CREATE PUBLICATION " + name + "_pub FOR TABLE kc");
      java.util.Map<String, String> config = f.config();
      config.put("ddl.detection", detection);
      startThenStop(f, config);
      f.db.execute("INSERT INTO kc VALUES (1, 'before')",
          "UPDATE kc SET v = 'updated' WHERE id = 1",
          "ALTER TABLE kc ADD COLUMN k int NOT NULL DEFAULT 0",
          "ALTER TABLE kc DROP CONSTRAINT kc_pkey, ADD PRIMARY KEY (id, k)",
          "ALTER TABLE kc RENAME TO kc2",
          "INSERT INTO kc2 VALUES (2, 'after', 5)");
      f.start(config);
      awaitApplied(f, "insert kc2 {id=2, v=\"after\", k=5}");
      List<String> keys = ReplayRule.appliedChanges(f.entries()).stream()
          .filter(m -> m instanceof DataChange.Insert || m instanceof DataChange.Update)
          .map(m -> {
            io.pg2lite.protocol.schema.Relation r = m instanceof DataChange.Insert i ? i.relation()
                : ((DataChange.Update) m).relation();
            return r.name() + " " + r.rowKey().columns();
          }).toList();
      assertEquals(List.of("kc [id]", "kc [id]", "kc2 [id, k]"), keys.subList(keys.size() - 3, keys.size()));
      assertTrue(f.schemaHistory().size() >= 1, "the history holds the schemas the source may resume with");
    }
  }

  /** Starts the source until it wrote its first transaction, then stops it: what is written next waits in the slot. */
  private static void startThenStop(SourceFixture f) throws Exception {
    startThenStop(f, f.config());
  }

  private static void startThenStop(SourceFixture f, java.util.Map<String, String> config) throws Exception {
    f.start(config);
    f.awaitEntries(3, WAIT);
    f.awaitPositionStored(WAIT);
    f.stopConnector();
    Await.until("slot released", WAIT, () -> {
      try {
        return f.db.queryColumn("SELECT active::text FROM pg_replication_slots WHERE slot_name = '" + f.name + "_slot'")
            .stream().noneMatch("true"::equals);
      } catch (SQLException e) {
        throw new IllegalStateException(e);
      }
    });
  }

  /**
   * Reads until a change described as {@code last} was applied, failing fast with the task's
   * trace if the task failed; returns every change applied after the first transaction (the
   * initial create-table), described, including what arrived within a few seconds more.
   */
  private static List<String> awaitApplied(SourceFixture f, String last) {
    try {
      Await.value("\"" + last + "\" in the log", WAIT, () -> {
        String failure = f.stack.connect().rest().status(f.name).failure();
        if (failure != null) {
          throw new AssertionError(failure);
        }
        return described(f.awaitEntries(1, Duration.ofMillis(500))).contains(last) ? Boolean.TRUE : null;
      });
    } catch (AssertionError e) {
      throw new AssertionError(e.getMessage() + "\napplied so far:\n" + String.join("\n", described(f.entries())), e);
    }
    List<String> applied = described(f.awaitEntries(100, Duration.ofSeconds(3)));
    return applied.subList(initialChanges(f), applied.size());
  }

  private static List<String> described(List<ChangeLogEntry> log) {
    return ReplayRule.appliedChanges(log).stream().map(TypeChangesIT::describe).toList();
  }

  /** The number of changes of the first transaction (written before the source was stopped). */
  private static int initialChanges(SourceFixture f) {
    List<ChangeLogEntry> log = f.entries();
    int n = 0;
    for (ChangeLogEntry e : log.subList(1, log.size())) {
      if (e.message() instanceof io.pg2lite.protocol.message.Commit) {
        return n;
      }
      n++;
    }
    throw new IllegalStateException("first transaction not complete: " + log);
  }

  /** Without index and metadata changes, and without backfill transactions (their timing is the copy's). */
  private static List<String> withoutIndexes(List<String> applied) {
    return applied.stream().filter(s -> !s.startsWith("create-index") && !s.startsWith("drop-index")
        && !s.startsWith("update-table-metadata") && !s.startsWith("backfill")).toList();
  }

  /** id -> value of {@code column}, over every insert a consumer applies. */
  private static Map<Long, Value> insertedValues(List<ChangeLogEntry> log, String column) {
    Map<Long, Value> out = new TreeMap<>();
    for (Message m : ReplayRule.appliedChanges(log)) {
      if (m instanceof DataChange.Insert i) {
        Value previous = out.put(((Value.Int) i.row().get("id")).value(), i.row().get(column));
        if (previous != null) {
          throw new AssertionError("row " + i.row() + " inserted twice");
        }
      }
    }
    return out;
  }

  /**
   * A change as one line: its kind, table and exact values (text quoted, numbers bare); an
   * update's key is "-" when it has none (the key did not change).
   */
  static String describe(Message m) {
    if (m instanceof DataChange.Insert i) {
      return "insert " + table(i.relation()) + " " + row(i.row());
    }
    if (m instanceof DataChange.Update u) {
      return "update " + table(u.relation()) + " " + (u.key() == null ? "-" : row(u.key())) + " " + row(u.row());
    }
    if (m instanceof DataChange.Delete d) {
      return "delete " + table(d.relation()) + " " + row(d.key());
    }
    if (m instanceof SchemaChange.CreateTable c) {
      return "create-table " + c.spec().name();
    }
    if (m instanceof SchemaChange.DropTable d) {
      return "drop-table " + d.id().name();
    }
    if (m instanceof SchemaChange.UpdateColumn c) {
      return "update-column " + c.table().name() + "." + c.updated().name() + " " + c.old().spec().dataType()
          + " -> " + c.updated().spec().dataType();
    }
    if (m instanceof SchemaChange.DropColumn c) {
      return "drop-column " + c.table().name() + "." + c.column();
    }
    if (m instanceof SchemaChange.AddColumn c) {
      return "add-column " + c.table().name() + "." + c.column().name() + " " + c.column().spec().dataType()
          + (c.backfill() == null ? "" : ", backfilled");
    }
    if (m instanceof DataChange.Backfill b) {
      return "backfill " + b.relation().table().name() + " " + b.columns();
    }
    if (m instanceof SchemaChange.BackfillCompleted b) {
      return "backfill-completed " + b.relation().table().name() + " " + b.columns();
    }
    if (m instanceof SchemaChange.CreateIndex c) {
      return "create-index " + c.spec().name();
    }
    if (m instanceof SchemaChange.DropIndex d) {
      return "drop-index " + d.id().name();
    }
    if (m instanceof SchemaChange.UpdateTableMetadata u) {
      return "update-table-metadata " + u.table().name();
    }
    return m.getClass().getSimpleName();
  }

  private static String table(Relation r) {
    return r.name();
  }

  private static String row(Row row) {
    return row.values().entrySet().stream().map(e -> e.getKey() + "=" + value(e.getValue()))
        .collect(Collectors.joining(", ", "{", "}"));
  }

  private static String value(Value v) {
    if (v instanceof Value.Text t) {
      return "\"" + t.value().replace("\"", "\\\"") + "\"";
    }
    if (v instanceof Value.Int i) {
      return Long.toString(i.value());
    }
    if (v instanceof Value.Array a) {
      List<String> parts = new ArrayList<>();
      a.elements().forEach(e -> parts.add(value(e)));
      return "[" + String.join(", ", parts) + "]";
    }
    if (v instanceof Value.Null) {
      return "null";
    }
    return v.toString();
  }
}
