package io.pg2lite.backfill.state;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pg2lite.protocol.message.ChangeLogEntry;
import io.pg2lite.protocol.message.Commit;
import io.pg2lite.protocol.message.DataChange;
import io.pg2lite.protocol.message.Message;
import io.pg2lite.protocol.message.SchemaChange;
import io.pg2lite.protocol.schema.BackfillId;
import io.pg2lite.protocol.schema.BackfillStatus;
import io.pg2lite.protocol.schema.Column;
import io.pg2lite.protocol.schema.ColumnSpec;
import io.pg2lite.protocol.schema.QualifiedName;
import io.pg2lite.protocol.schema.Relation;
import io.pg2lite.protocol.schema.RowKey;
import io.pg2lite.protocol.schema.TableMetadata;
import io.pg2lite.protocol.schema.TableSpec;
import io.pg2lite.protocol.value.Row;
import io.pg2lite.protocol.value.Value;
import io.pg2lite.protocol.watermark.Watermark;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/** Every transition of reference §5.5, and the start/retry rules of §5.6. */
public class BackfillStateMachineTest {
  static final QualifiedName T = new QualifiedName("public", "t");
  static final QualifiedName U = new QualifiedName("public", "u");
  static final TableMetadata META = new TableMetadata(2200, 16384, Map.of("id", 1));
  static final Watermark W = Watermark.parse("0a");

  final BackfillStateMachine sm = new BackfillStateMachine(List.of(), W, new Random(7));

  static ChangeLogEntry entry(Message m) {
    return new ChangeLogEntry(W.nextMajor(), 1, m);
  }

  public static SchemaChange.CreateTable createTable(QualifiedName t, String... backfilled) {
    Map<String, ColumnSpec> cols = new LinkedHashMap<>();
    Map<String, BackfillId> bf = new LinkedHashMap<>();
    cols.put("id", ColumnSpec.of(1, "int8"));
    for (int i = 0; i < backfilled.length; i++) {
      cols.put(backfilled[i], ColumnSpec.of(i + 2, "text"));
      bf.put(backfilled[i], new BackfillId(i + 2));
    }
    return new SchemaChange.CreateTable(new TableSpec(t.schema(), t.name(), cols, List.of("id")), META, bf);
  }

  static Set<String> columns(BackfillStateMachine sm, QualifiedName t) {
    return sm.required().stream().filter(r -> r.table().equals(t)).flatMap(r -> r.columns().keySet().stream())
        .collect(Collectors.toSet());
  }

  @Test
  void createTableWithBackfillIsRequiredAndStartsAtOnce() {
    sm.observe(entry(createTable(T, "a", "b")));
    assertEquals(Set.of("a", "b"), columns(sm, T));
    RunningBackfill run = sm.startNext(0);
    assertNotNull(run);
    assertEquals(T, run.request().table());
    assertNull(sm.startNext(0), "one copy at a time");
  }

  /** Ten tables t0..t9 required, and a live insert into t7. */
  private static BackfillStateMachine tenTablesAndAnInsertIntoT7(int seed) {
    BackfillStateMachine m = new BackfillStateMachine(List.of(), W, new Random(seed));
    for (int i = 0; i < 10; i++) {
      m.observe(entry(createTable(new QualifiedName("public", "t" + i), "a")));
    }
    m.observe(entry(new io.pg2lite.protocol.message.DataChange.Insert(
        new io.pg2lite.protocol.schema.Relation("public", "t7", new io.pg2lite.protocol.schema.RowKey(List.of("id"),
            null)), io.pg2lite.protocol.value.Row.of("id", io.pg2lite.protocol.value.Value.of(1)))));
    return m;
  }

  /** Tables the live stream changes are copied before the others (their replica shows them sooner). */
  @Test
  void aTableInUseIsCopiedFirst() {
    for (int seed = 0; seed < 20; seed++) {
      BackfillStateMachine m = tenTablesAndAnInsertIntoT7(seed);
      assertEquals("t7", m.startNext(0).request().table().name(), "seed " + seed);
    }
  }

  /** A table in use that keeps failing loses its priority: the others are not held back. */
  @Test
  void aTableInUseThatFailsGoesBackAmongTheOthers() {
    java.util.Set<String> picked = new java.util.HashSet<>();
    for (int seed = 0; seed < 20; seed++) {
      BackfillStateMachine m = tenTablesAndAnInsertIntoT7(seed);
      m.failed(m.startNext(0), "no row key", 0);
      picked.add(m.startNext(10 * 60_000).request().table().name());
    }
    assertTrue(picked.size() > 1, "after its failure t7 is one candidate among ten: " + picked);
  }

  @Test
  void createTableWithoutBackfillIsNotRequired() {
    sm.observe(entry(createTable(T)));
    assertTrue(sm.required().isEmpty());
    assertNull(sm.startNext(0));
  }

  @Test
  void addColumnMergesIntoTheRequestWithoutCancelling() {
    sm.observe(entry(createTable(T, "a")));
    RunningBackfill run = sm.startNext(0);
    TableMetadata newer = new TableMetadata(2200, 16384, Map.of("id", 1));
    sm.observe(entry(new SchemaChange.AddColumn(T, new Column("c", ColumnSpec.of(3, "text")), newer, new BackfillId(3))));
    assertEquals(Set.of("a", "c"), columns(sm, T));
    assertFalse(run.isCancelled(), "a new column is picked up by a later run");
    assertEquals(Set.of("a"), run.request().columns().keySet(), "the running copy keeps its columns");
  }

  @Test
  void addColumnToAnUntrackedTableCreatesARequest() {
    sm.observe(entry(new SchemaChange.AddColumn(U, new Column("c", ColumnSpec.of(3, "text")), META, new BackfillId(3))));
    assertEquals(Set.of("c"), columns(sm, U));
    assertEquals(META, sm.required().get(0).metadata());
  }

  @Test
  void metadataUpdateReplacesMetadataAndCancels() {
    sm.observe(entry(createTable(T, "a")));
    RunningBackfill run = sm.startNext(0);
    TableMetadata rekeyed = new TableMetadata(2200, 16384, Map.of("a", 2));
    sm.observe(entry(new SchemaChange.UpdateTableMetadata(T, META, rekeyed)));
    assertEquals(rekeyed, sm.required().get(0).metadata());
    assertTrue(run.isCancelled());
    assertEquals("table metadata updated", run.cancelledReason());
    assertNotNull(sm.startNext(0), "a cancelled copy restarts at once, no backoff");
  }

  @Test
  void renameTableReKeysAndCancels() {
    sm.observe(entry(createTable(T, "a")));
    RunningBackfill run = sm.startNext(0);
    sm.observe(entry(new SchemaChange.RenameTable(T, U)));
    assertEquals(Set.of(), columns(sm, T));
    assertEquals(Set.of("a"), columns(sm, U));
    assertEquals("table renamed", run.cancelledReason());
  }

  @Test
  void dropTableRemovesAndCancels() {
    sm.observe(entry(createTable(T, "a")));
    RunningBackfill run = sm.startNext(0);
    long v = sm.version();
    sm.observe(entry(new SchemaChange.DropTable(T)));
    assertTrue(sm.required().isEmpty());
    assertEquals("table dropped", run.cancelledReason());
    assertTrue(sm.version() > v, "the stored state changes");
  }

  @Test
  void columnRenameRenamesAndCancelsOnlyWhenTheCopyHasIt() {
    sm.observe(entry(createTable(T, "a", "b")));
    RunningBackfill run = sm.startNext(0);
    sm.observe(entry(new SchemaChange.UpdateColumn(T, new Column("a", ColumnSpec.of(2, "text")),
        new Column("a2", ColumnSpec.of(2, "text")))));
    assertEquals(Set.of("a2", "b"), columns(sm, T));
    assertEquals("column renamed", run.cancelledReason());
  }

  @Test
  void columnRetypeWithoutRenameDoesNotCancel() {
    sm.observe(entry(createTable(T, "a")));
    RunningBackfill run = sm.startNext(0);
    sm.observe(entry(new SchemaChange.UpdateColumn(T, new Column("a", ColumnSpec.of(2, "text")),
        new Column("a", ColumnSpec.of(2, "int8")))));
    assertFalse(run.isCancelled());
  }

  @Test
  void dropColumnRemovesItAndTheRequestWhenEmpty() {
    sm.observe(entry(createTable(T, "a", "b")));
    RunningBackfill run = sm.startNext(0);
    sm.observe(entry(new SchemaChange.DropColumn(T, "a")));
    assertEquals(Set.of("b"), columns(sm, T));
    assertEquals("column dropped", run.cancelledReason());
    sm.observe(entry(new SchemaChange.DropColumn(T, "b")));
    assertTrue(sm.required().isEmpty());
  }

  @Test
  void dropOfAColumnNotBeingCopiedChangesNothing() {
    sm.observe(entry(createTable(T, "a")));
    RunningBackfill run = sm.startNext(0);
    long v = sm.version();
    sm.observe(entry(new SchemaChange.DropColumn(T, "other")));
    assertFalse(run.isCancelled());
    assertEquals(v, sm.version());
  }

  @Test
  void backfillCompletedRemovesCopiedAndKeyColumnsAndEndsTheRun() {
    sm.observe(entry(createTable(T, "id", "a", "b")));
    RunningBackfill run = sm.startNext(0);
    sm.observe(entry(new SchemaChange.AddColumn(T, new Column("c", ColumnSpec.of(5, "text")), META, new BackfillId(5))));
    sm.observe(entry(new SchemaChange.BackfillCompleted(new Relation("public", "t", RowKey.of("id")),
        List.of("a", "b"), W, new BackfillStatus(0, 0, null))));
    assertEquals(Set.of("c"), columns(sm, T), "the column added during the copy remains");
    assertNull(sm.running());
    assertFalse(run.isCancelled());
    assertSame(T, sm.startNext(0).request().table(), "the next run starts for the rest");
  }

  @Test
  void rowKeyChangeOfTheCopiedTableRaisesTheMinimumSnapshotAtItsCommit() {
    sm.observe(entry(createTable(T, "a")));
    RunningBackfill run = sm.startNext(0);
    Relation rel = new Relation("public", "t", RowKey.of("id"));
    sm.observe(entry(new DataChange.Update(rel, Row.of("id", Value.of(1L)), Row.of("id", Value.of(1L), "a", Value.of("x")))));
    Watermark c1 = Watermark.parse("0m");
    sm.observe(new ChangeLogEntry(c1, 2, new Commit(1, null)));
    assertNull(run.minSnapshot(), "same key: no re-key");
    sm.observe(entry(new DataChange.Update(rel, Row.of("id", Value.of(1L)), Row.of("id", Value.of(2L), "a", Value.of("x")))));
    Watermark c2 = Watermark.parse("0q");
    sm.observe(new ChangeLogEntry(c2, 2, new Commit(1, null)));
    assertEquals(c2, run.minSnapshot());
    sm.observe(entry(new DataChange.Update(new Relation("public", "u", RowKey.of("id")), Row.of("id", Value.of(1L)),
        Row.of("id", Value.of(3L)))));
    sm.observe(new ChangeLogEntry(Watermark.parse("0w"), 2, new Commit(1, null)));
    assertEquals(c2, run.minSnapshot(), "other tables do not matter");
  }

  @Test
  void failuresBackOffTwoSecondsDoublingToSixty() {
    sm.observe(entry(createTable(T, "a")));
    long now = 0;
    long[] expected = {2_000, 4_000, 8_000, 16_000, 32_000, 60_000, 60_000};
    for (long delay : expected) {
      RunningBackfill run = sm.startNext(now);
      assertNotNull(run);
      sm.failed(run, "boom", now);
      assertTrue(run.isCancelled());
      assertNull(sm.startNext(now + delay - 1), "not before " + delay + " ms");
      assertEquals(1, sm.retryDelay(now + delay - 1));
      now += delay;
    }
    RunningBackfill run = sm.startNext(now);
    sm.observe(entry(new SchemaChange.BackfillCompleted(new Relation("public", "t", RowKey.of("id")), List.of("a"), W,
        new BackfillStatus(1, 1, null))));
    assertNull(sm.running());
    sm.observe(entry(createTable(U, "a")));
    RunningBackfill next = sm.startNext(now);
    sm.failed(next, "again", now);
    assertNull(sm.startNext(now + 1_999));
    assertNotNull(sm.startNext(now + 2_000), "a completed copy resets the backoff");
  }

  @Test
  void choosesAtRandomAmongRequiredTables() {
    Map<QualifiedName, Integer> chosen = new LinkedHashMap<>();
    Random random = new Random(42);
    for (int i = 0; i < 200; i++) {
      BackfillStateMachine m = new BackfillStateMachine(List.of(), W, random);
      m.observe(entry(createTable(T, "a")));
      m.observe(entry(createTable(U, "a")));
      chosen.merge(m.startNext(0).request().table(), 1, Integer::sum);
    }
    assertEquals(2, chosen.size());
    assertTrue(chosen.values().stream().allMatch(n -> n > 60), "both chosen often: " + chosen);
  }

  @Test
  void reachedFollowsCommitsAndMainStreamPositions() {
    Watermark later = Watermark.parse("0x");
    assertTrue(sm.reached(W));
    assertFalse(sm.reached(later));
    sm.mainStreamAt(later);
    assertTrue(sm.reached(later));
    sm.mainStreamAt(W);
    assertTrue(sm.reached(later), "never moves backwards");
    Watermark evenLater = Watermark.parse("0y");
    sm.observe(new ChangeLogEntry(evenLater, 1, new Commit(0, null)));
    assertTrue(sm.reached(evenLater));
  }

  @Test
  void requiredBackfillsRoundTripThroughTheirStoredForm() {
    sm.observe(entry(createTable(T, "a", "b")));
    sm.observe(entry(new SchemaChange.AddColumn(new QualifiedName("s\"x", "t y"), new Column("c", ColumnSpec.of(3, "text")),
        null, new BackfillId(3))));
    String json = BackfillRequestsCodec.encode(sm.required());
    assertEquals(sm.required(), BackfillRequestsCodec.decode(json));
    BackfillStateMachine restored = new BackfillStateMachine(BackfillRequestsCodec.decode(json), W, new Random(1));
    assertEquals(sm.required(), restored.required());
  }
}
