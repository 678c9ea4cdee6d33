package io.pg2lite.backfill;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pg2lite.connect.hold.TestHolds;
import io.pg2lite.backfill.copy.TableCopy;
import io.pg2lite.backfill.copy.TableCopySource;
import io.pg2lite.backfill.schedule.BackfillScheduler;
import io.pg2lite.backfill.schedule.MainStreamState;
import io.pg2lite.backfill.state.BackfillRequest;
import io.pg2lite.backfill.state.BackfillStateMachine;
import io.pg2lite.backfill.state.BackfillStateMachineTest;
import io.pg2lite.backfill.state.SchemaIncompatibilityException;
import io.pg2lite.protocol.message.Begin;
import io.pg2lite.protocol.message.ChangeLogEntry;
import io.pg2lite.protocol.message.Commit;
import io.pg2lite.protocol.message.DataChange;
import io.pg2lite.protocol.message.SchemaChange;
import io.pg2lite.protocol.schema.BackfillStatus;
import io.pg2lite.protocol.schema.QualifiedName;
import io.pg2lite.protocol.schema.Relation;
import io.pg2lite.protocol.schema.RowKey;
import io.pg2lite.protocol.value.Row;
import io.pg2lite.protocol.value.Value;
import io.pg2lite.protocol.watermark.Watermark;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

/** Backfill transactions: watermarks, completion, cancellation and failures, with a fake copy and clock. */
class BackfillStreamTest {
  static final QualifiedName T = new QualifiedName("public", "t");
  static final Watermark START = Watermark.parse("0a");

  /** Rows 1..rows of table t, key "id", copied column "a". */
  final class FakeCopy implements TableCopy {
    final Watermark snapshot;
    final int rows;
    final List<String> key;
    int next = 1;
    boolean closed;

    FakeCopy(Watermark snapshot, int rows, List<String> key) {
      this.snapshot = snapshot;
      this.rows = rows;
      this.key = key;
    }

    @Override public Watermark snapshot() { return snapshot; }
    @Override public Relation relation() { return new Relation("public", "t", new RowKey(key, null)); }
    @Override public List<String> columns() { return List.of("a"); }
    @Override public BackfillStatus status() { return new BackfillStatus(next - 1, rows, null); }
    @Override public void close() { closed = true; }

    @Override
    public List<List<Value>> next(int maxRows, long maxBytes) {
      now += millisPerBatch; // reading takes time
      List<List<Value>> out = new ArrayList<>();
      while (out.size() < maxRows && out.size() * 16L < maxBytes && next <= rows) {
        out.add(key.isEmpty() ? List.of(Value.of("v" + next)) : List.of(Value.of(next), Value.of("v" + next)));
        next++;
      }
      return out;
    }
  }

  long now;
  long millisPerBatch;
  final List<FakeCopy> opened = new ArrayList<>();
  Watermark nextSnapshot = Watermark.parse("0c");
  int tableRows = 25;
  List<String> key = List.of("id");
  RuntimeException openFailure;
  final TableCopySource source = request -> {
    if (openFailure != null) {
      throw openFailure;
    }
    FakeCopy c = new FakeCopy(nextSnapshot, tableRows, key);
    opened.add(c);
    return c;
  };
  final BackfillStateMachine state = new BackfillStateMachine(List.of(), START, new Random(1));
  final BackfillStream stream = new BackfillStream(state, source, new BackfillScheduler(2), 10, START, () -> now);

  /** Writes entries as the source task would: observed in log order. */
  List<ChangeLogEntry> write(List<ChangeLogEntry> entries) {
    entries.forEach(stream::observe);
    return entries;
  }

  void requireTable() {
    write(List.of(new ChangeLogEntry(START.nextMinor(), 1, BackfillStateMachineTest.createTable(T, "a"))));
  }

  /** The poll that wrote a live commit writes no backfill transaction: it ends, and commits the live one. */
  void livePollEnds() {
    assertTrue(stream.nextTransaction(MainStreamState.IDLE).isEmpty(), "not in the poll that wrote a live commit");
  }

  void mainCommit(Watermark w) {
    write(List.of(new ChangeLogEntry(w, 1, new Commit(0, null))));
  }

  /** A copy held by a test (TestHolds) writes nothing past its hold, and goes on once released. */
  @Test
  void aHeldCopyWritesNothingPastItsHoldUntilReleased() {
    requireTable();
    List<ChangeLogEntry> written = new ArrayList<>();
    try (TestHolds.Hold hold = TestHolds.holdAfter(TestHolds.COPY, T.toString(), 10)) {
      written.addAll(write(stream.nextTransaction(MainStreamState.IDLE)));
      for (int i = 0; i < 5; i++) {
        written.addAll(write(stream.nextTransaction(MainStreamState.IDLE)));
      }
      long rows = written.stream().filter(e -> e.message() instanceof DataChange.Backfill)
          .mapToLong(e -> ((DataChange.Backfill) e.message()).rowValues().size()).sum();
      assertEquals(10, rows, "one batch of 10 rows, then nothing while held");
    }
    mainCommit(nextSnapshot);
    for (int i = 0; i < 5 && written.stream().noneMatch(e -> e.message() instanceof SchemaChange.BackfillCompleted); i++) {
      written.addAll(write(stream.nextTransaction(MainStreamState.IDLE)));
    }
    assertTrue(written.stream().anyMatch(e -> e.message() instanceof SchemaChange.BackfillCompleted),
        "released, the copy completes");
  }

  @Test
  void copiesInTransactionsAfterTheLastCommitAndCompletesOnceTheLogReachedTheSnapshot() {
    requireTable();
    List<ChangeLogEntry> tx1 = write(stream.nextTransaction(MainStreamState.IDLE));
    Watermark w1 = START.nextMinor();
    assertEquals(4, tx1.size(), "begin, two batches of 10 rows, commit");
    assertTrue(tx1.stream().allMatch(e -> e.watermark().equals(w1)), "every entry carries " + w1);
    assertTrue(((Begin) tx1.get(0).message()).backfill());
    DataChange.Backfill b = (DataChange.Backfill) tx1.get(1).message();
    assertEquals(nextSnapshot, b.watermark());
    assertEquals(10, b.rowValues().size());
    assertEquals(new BackfillStatus(10, 25, null), b.status());

    List<ChangeLogEntry> tx2 = write(stream.nextTransaction(MainStreamState.IDLE));
    assertEquals(3, tx2.size(), "the last 5 rows; completion must wait for the log to reach the snapshot");
    assertTrue(tx2.get(0).watermark().isAfter(w1));
    assertTrue(stream.nextTransaction(MainStreamState.IDLE).isEmpty(), "the log has not reached the snapshot");

    Watermark c = Watermark.parse("0d");
    mainCommit(c);
    livePollEnds();
    List<ChangeLogEntry> tx3 = write(stream.nextTransaction(MainStreamState.IDLE));
    SchemaChange.BackfillCompleted done = assertInstanceOf(SchemaChange.BackfillCompleted.class, tx3.get(1).message());
    assertEquals(c.nextMinor(), tx3.get(0).watermark(), "the next minor of the last commit");
    assertTrue(tx3.get(0).watermark().isAfter(done.watermark()), "never below the snapshot");
    assertEquals(new BackfillStatus(25, 25, null), done.status());
    assertTrue(opened.get(0).closed);
    assertTrue(state.required().isEmpty());
    assertNull(stream.requiredJson());
    assertTrue(stream.nextTransaction(MainStreamState.IDLE).isEmpty());
  }

  /**
   * After a restart whose log ends in a cut live transaction (begin at 0e), no backfill
   * transaction may be written before that transaction's repeat commits: the log's last commit
   * is unknown, and a backfill at 0e.k would sort above the repeat's begin 0e.
   */
  @Test
  void aHoldKeepsBackfillTransactionsBackUntilACommitAtOrAboveIt() {
    Watermark cutBegin = Watermark.parse("0e");
    BackfillStream held = new BackfillStream(new BackfillStateMachine(List.of(), START, new Random(1)), source,
        new BackfillScheduler(2), 10, cutBegin, () -> now).holdUntilCommitAtOrAbove(cutBegin);
    held.observe(new ChangeLogEntry(START.nextMinor(), 1, BackfillStateMachineTest.createTable(T, "a")));
    assertTrue(held.nextTransaction(MainStreamState.IDLE).isEmpty(), "held");
    held.observe(new ChangeLogEntry(Watermark.parse("0d"), 1, new Commit(0, null))); // a repeat below the cut
    assertTrue(held.nextTransaction(MainStreamState.IDLE).isEmpty(), "still held: a repeat is not the cut transaction");
    held.observe(new ChangeLogEntry(Watermark.parse("0f"), 3, new Commit(2, null))); // the cut transaction again
    assertTrue(held.nextTransaction(MainStreamState.IDLE).isEmpty(), "not in the poll that wrote it");
    List<ChangeLogEntry> tx = held.nextTransaction(MainStreamState.IDLE);
    assertEquals(Watermark.parse("0f").nextMinor(), tx.get(0).watermark(), "then above its commit");
  }

  @Test
  void mainStreamPositionWithoutATransactionAlsoCounts() {
    requireTable();
    tableRows = 0;
    assertTrue(stream.nextTransaction(MainStreamState.IDLE).isEmpty());
    stream.mainStreamAt(Watermark.parse("0c"));
    List<ChangeLogEntry> tx = stream.nextTransaction(MainStreamState.IDLE);
    assertInstanceOf(SchemaChange.BackfillCompleted.class, tx.get(1).message());
    assertEquals(Watermark.parse("0c").nextMinor(), tx.get(0).watermark(),
        "above the snapshot, though the position was reached without a commit in the log");
  }

  @Test
  void whileLiveTransactionsFlowABackfillTransactionReadsOnlyForTheLiveBudget() {
    BackfillStream paced = new BackfillStream(state, source, new BackfillScheduler(20, 15), 1, START, () -> now);
    paced.observe(new ChangeLogEntry(START.nextMinor(), 1, BackfillStateMachineTest.createTable(T, "a")));
    millisPerBatch = 10;
    List<ChangeLogEntry> idle = paced.nextTransaction(MainStreamState.IDLE);
    assertEquals(2 + 20, idle.size(), "nothing live: the full 20 batches");
    paced.observe(new ChangeLogEntry(Watermark.parse("0d"), 1, new Commit(0, null)));
    assertTrue(paced.nextTransaction(MainStreamState.IDLE).isEmpty(), "not in the poll that wrote the live commit");
    List<ChangeLogEntry> live = paced.nextTransaction(MainStreamState.IDLE);
    assertEquals(2 + 2, live.size(), "batches read until 15 ms had passed (10 ms each): two");
    now += 1_000;
    assertEquals(6, paced.nextTransaction(MainStreamState.IDLE).size(),
        "a second later, no time bound: the last 3 rows and backfill-completed at once");
  }

  @Test
  void aCopyOpenedInTheBackgroundNeverHoldsTheCallerBack() throws Exception {
    java.util.concurrent.CountDownLatch release = new java.util.concurrent.CountDownLatch(1);
    TableCopySource slow = request -> {
      release.await(5, java.util.concurrent.TimeUnit.SECONDS); // the snapshot, the count, the first query
      return source.open(request);
    };
    BackfillStream bg = new BackfillStream(state, slow, new BackfillScheduler(2), 10, START, () -> now)
        .openInBackground();
    bg.observe(new ChangeLogEntry(START.nextMinor(), 1, BackfillStateMachineTest.createTable(T, "a")));
    long t0 = System.nanoTime();
    assertTrue(bg.nextTransaction(MainStreamState.IDLE).isEmpty(), "opening");
    assertTrue(bg.nextTransaction(MainStreamState.IDLE).isEmpty(), "still opening");
    assertTrue(System.nanoTime() - t0 < 1_000_000_000L, "the caller never waited for the open");
    release.countDown();
    List<ChangeLogEntry> tx = List.of();
    for (int i = 0; i < 1000 && tx.isEmpty(); i++) {
      Thread.sleep(1);
      tx = bg.nextTransaction(MainStreamState.IDLE);
    }
    assertEquals(4, tx.size(), "once open, the copy's first transaction");
    bg.close();
    assertTrue(opened.get(0).closed);
  }

  @Test
  void aRateCapSpacesBackfillTransactions() {
    stream.maxRowsPerSecond(40);
    requireTable();
    assertEquals(4, stream.nextTransaction(MainStreamState.IDLE).size(), "20 rows");
    now = 499;
    assertTrue(stream.nextTransaction(MainStreamState.IDLE).isEmpty(), "20 rows at 40 rows/s: 500 ms");
    now = 500;
    assertEquals(3, stream.nextTransaction(MainStreamState.IDLE).size(), "the last 5 rows");
  }

  @Test
  void neverInsideAMainTransaction() {
    requireTable();
    assertTrue(stream.nextTransaction(MainStreamState.IN_TRANSACTION).isEmpty());
    assertTrue(opened.isEmpty(), "not even a snapshot is taken");
  }

  @Test
  void aBusyMainStreamGetsOneBatchASecond() {
    requireTable();
    assertTrue(stream.nextTransaction(MainStreamState.BUSY).isEmpty());
    now = 1_000;
    assertEquals(3, stream.nextTransaction(MainStreamState.BUSY).size(), "begin, one batch, commit");
  }

  @Test
  void droppingTheTableCancelsTheCopy() {
    requireTable();
    write(stream.nextTransaction(MainStreamState.IDLE));
    write(List.of(new ChangeLogEntry(Watermark.parse("0e"), 1, new SchemaChange.DropTable(T))));
    assertTrue(stream.nextTransaction(MainStreamState.IDLE).isEmpty());
    assertTrue(opened.get(0).closed);
    assertEquals(1, opened.size(), "nothing left to copy");
  }

  @Test
  void renamingTheTableRestartsTheCopyUnderTheNewName() {
    requireTable();
    write(stream.nextTransaction(MainStreamState.IDLE));
    QualifiedName renamed = new QualifiedName("public", "t2");
    write(List.of(new ChangeLogEntry(Watermark.parse("0e"), 1, new SchemaChange.RenameTable(T, renamed))));
    List<ChangeLogEntry> tx = stream.nextTransaction(MainStreamState.IDLE);
    assertTrue(tx.isEmpty() || tx.size() > 2);
    if (tx.isEmpty()) {
      tx = stream.nextTransaction(MainStreamState.IDLE);
    }
    assertEquals(2, opened.size(), "a new snapshot");
    assertTrue(opened.get(0).closed);
    assertEquals(renamed, state.running().request().table());
  }

  @Test
  void aRowKeyChangeAfterTheSnapshotRestartsWithANewerSnapshot() {
    requireTable();
    write(stream.nextTransaction(MainStreamState.IDLE));
    Relation rel = new Relation("public", "t", RowKey.of("id"));
    write(List.of(new ChangeLogEntry(Watermark.parse("0d"), 1, new DataChange.Update(rel, Row.of("id", Value.of(1L)),
        Row.of("id", Value.of(99L), "a", Value.of("x")))), new ChangeLogEntry(Watermark.parse("0e"), 2, new Commit(1, null))));
    nextSnapshot = Watermark.parse("0f");
    livePollEnds();
    assertTrue(stream.nextTransaction(MainStreamState.IDLE).isEmpty(), "the old snapshot is abandoned");
    List<ChangeLogEntry> tx = stream.nextTransaction(MainStreamState.IDLE);
    assertEquals(nextSnapshot, ((DataChange.Backfill) tx.get(1).message()).watermark());
    assertEquals(2, opened.size());
  }

  @Test
  void aTableWithRowsButNoKeyFailsAndRetriesWithBackoff() {
    key = List.of();
    requireTable();
    assertTrue(stream.nextTransaction(MainStreamState.IDLE).isEmpty(), "nothing is written");
    assertTrue(opened.get(0).closed);
    now = 1_999;
    assertTrue(stream.nextTransaction(MainStreamState.IDLE).isEmpty());
    assertEquals(1, opened.size(), "no retry before 2 s");
    now = 2_000;
    key = List.of("id");
    assertEquals(4, stream.nextTransaction(MainStreamState.IDLE).size());
    assertEquals(2, opened.size());
  }

  @Test
  void anEmptyTableWithoutKeyCompletes() {
    key = List.of();
    tableRows = 0;
    requireTable();
    mainCommit(Watermark.parse("0d"));
    livePollEnds();
    List<ChangeLogEntry> tx = stream.nextTransaction(MainStreamState.IDLE);
    assertInstanceOf(SchemaChange.BackfillCompleted.class, tx.get(1).message());
  }

  @Test
  void anIncompatibleSchemaRetriesAfterBackoff() {
    requireTable();
    openFailure = new SchemaIncompatibilityException("column a is missing in the snapshot");
    assertTrue(stream.nextTransaction(MainStreamState.IDLE).isEmpty());
    openFailure = null;
    now = 1_000;
    assertTrue(stream.nextTransaction(MainStreamState.IDLE).isEmpty());
    now = 2_000;
    assertNotNull(stream.nextTransaction(MainStreamState.IDLE).get(1));
  }

  @Test
  void requiredStateIsStoredWithEveryChange() {
    assertNull(stream.requiredJson());
    requireTable();
    String json = stream.requiredJson();
    assertTrue(json.contains("\"name\":\"t\""), json);
    BackfillRequest restored = io.pg2lite.backfill.state.BackfillRequestsCodec.decode(json).get(0);
    assertEquals(state.required().get(0), restored);
  }

  @Test
  void aDroppedConnectionOrAPostgresErrorRetriesButAMissingPrivilegeStopsTheTask() {
    requireTable();
    openFailure = new IllegalStateException("wrapped", new java.sql.SQLException("I/O error", "08006"));
    assertTrue(stream.nextTransaction(MainStreamState.IDLE).isEmpty(), "a lost connection is retried");
    now += 60_000;
    openFailure = new IllegalStateException("x", new java.sql.SQLException("column \"a\" does not exist", "42703"));
    assertTrue(stream.nextTransaction(MainStreamState.IDLE).isEmpty(), "a DDL racing the copy is retried");
    now += 60_000;
    openFailure = new IllegalStateException("x", new java.sql.SQLException("permission denied for table t", "42501"));
    io.pg2lite.backfill.state.BackfillFailedException denied = org.junit.jupiter.api.Assertions.assertThrows(
        io.pg2lite.backfill.state.BackfillFailedException.class, () -> stream.nextTransaction(MainStreamState.IDLE));
    assertTrue(denied.getMessage().contains("public.t") && denied.getMessage().contains("permission denied"),
        denied.getMessage());
  }

  @Test
  void aBugInTheCopyIsNeverRetried() {
    requireTable();
    openFailure = new NullPointerException("a bug");
    org.junit.jupiter.api.Assertions.assertThrows(io.pg2lite.backfill.state.BackfillFailedException.class,
        () -> stream.nextTransaction(MainStreamState.IDLE), "a bug is never retried");
  }
}
