package io.pg2lite.source.multiplex;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pg2lite.backfill.BackfillStream;
import io.pg2lite.backfill.copy.TableCopy;
import io.pg2lite.backfill.schedule.BackfillScheduler;
import io.pg2lite.backfill.schedule.MainStreamState;
import io.pg2lite.backfill.state.BackfillStateMachine;
import io.pg2lite.protocol.message.Begin;
import io.pg2lite.protocol.message.ChangeLogEntry;
import io.pg2lite.protocol.message.Commit;
import io.pg2lite.protocol.message.DataChange;
import io.pg2lite.protocol.message.SchemaChange;
import io.pg2lite.protocol.schema.BackfillId;
import io.pg2lite.protocol.schema.BackfillStatus;
import io.pg2lite.protocol.schema.ColumnSpec;
import io.pg2lite.protocol.schema.Relation;
import io.pg2lite.protocol.schema.RowKey;
import io.pg2lite.protocol.schema.TableMetadata;
import io.pg2lite.protocol.schema.TableSpec;
import io.pg2lite.protocol.value.Value;
import io.pg2lite.protocol.watermark.Watermark;
import io.pg2lite.source.transaction.Emitted;
import io.pg2lite.source.transaction.SourcePosition;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * The merge of the main stream and the backfill: main entries first and unchanged, backfill
 * transactions only at a main-stream boundary and as the scheduler allows, backfill records at the
 * main stream's position, and every position stamped with the backfills required as of the last
 * transaction boundary at or before it.
 */
class StreamMultiplexerTest {
  private static final Watermark V = Watermark.fromLsn("0/1000");
  private static final Watermark C0 = V.nextMinor();
  private static final Watermark C1 = Watermark.fromLsn("0/2000");
  private static final Watermark C2 = Watermark.fromLsn("0/3000");
  private static final SourcePosition P0 = new SourcePosition(V, C0, Map.of("lsn", 0x1000L));
  private static final SourcePosition P1 = new SourcePosition(V, C1, Map.of("lsn", 0x2000L));

  private long now = 1_000_000;
  private final List<FakeCopy> opened = new ArrayList<>();
  private final StreamMultiplexer mux = new StreamMultiplexer(new BackfillStream(
      new BackfillStateMachine(List.of(), C0, new Random(1)), request -> {
        FakeCopy c = new FakeCopy();
        opened.add(c);
        return c;
      }, new BackfillScheduler(1), 10, C0, () -> now), null);

  /** Three rows of public.t, key id, copied column a, from a snapshot the log has passed. */
  private static final class FakeCopy implements TableCopy {
    int next = 1;
    boolean closed;

    @Override public Watermark snapshot() { return C0; }
    @Override public Relation relation() { return new Relation("public", "t", new RowKey(List.of("id"), null)); }
    @Override public List<String> columns() { return List.of("a"); }
    @Override public BackfillStatus status() { return new BackfillStatus(next - 1, 3, null); }
    @Override public void close() { closed = true; }

    @Override
    public List<List<Value>> next(int maxRows, long maxBytes) {
      List<List<Value>> out = new ArrayList<>();
      while (out.size() < maxRows && next <= 3) {
        out.add(List.of(Value.of(next), Value.of("v" + next)));
        next++;
      }
      return out;
    }
  }

  private static SchemaChange.CreateTable createTableBackfillingA() {
    Map<String, ColumnSpec> cols = new LinkedHashMap<>();
    cols.put("id", ColumnSpec.of(1, "int8"));
    cols.put("a", ColumnSpec.of(2, "text"));
    return new SchemaChange.CreateTable(new TableSpec("public", "t", cols, List.of("id")),
        new TableMetadata(2200, 16384, Map.of("id", 1)), Map.of("a", new BackfillId(2)));
  }

  /** A live transaction committed at C1 that creates t with column a to backfill. */
  private static List<Emitted> liveCreateTable() {
    Watermark pre = C0.majorOnly().nextMajor();
    return List.of(new Emitted(new ChangeLogEntry(pre, 0, new Begin(7L, null, false)), P0, false),
        new Emitted(new ChangeLogEntry(pre, 1, createTableBackfillingA()), P0, false),
        new Emitted(new ChangeLogEntry(C1, 2, new Commit(1, null)), P1, true));
  }

  @Test
  void mainEntriesComeFirstThenOneBackfillTransactionAtTheMainStreamsPosition() {
    List<Emitted> main = liveCreateTable();
    List<Emitted> out = mux.merge(main, MainStreamState.IDLE, P1);
    assertEquals(main.size(), out.size(), "the poll that wrote a live transaction ends with it (it commits at once)");
    for (int i = 0; i < main.size(); i++) {
      assertSame(main.get(i).entry(), out.get(i).entry(), "main entry " + i + " first and unchanged");
    }
    List<Emitted> backfill = mux.merge(List.of(), MainStreamState.IDLE, P1);
    assertTrue(backfill.size() >= 3, "begin, rows, commit: " + backfill);
    assertTrue(assertInstanceOf(Begin.class, backfill.get(0).entry().message()).backfill());
    DataChange.Backfill rows = assertInstanceOf(DataChange.Backfill.class, backfill.get(1).entry().message());
    assertEquals(3, rows.rowValues().size());
    assertInstanceOf(Commit.class, backfill.get(backfill.size() - 1).entry().message());
    assertTrue(backfill.get(backfill.size() - 1).endsTransaction());
    for (Emitted e : backfill) {
      assertEquals(C1.nextMinor(), e.entry().watermark(), "the next minor of the last commit");
      assertEquals(C1, e.position().lastCommit(), "a backfill transaction keeps the main stream's position");
      assertEquals(P1.upstream(), e.position().upstream());
    }
  }

  @Test
  void positionsCarryTheRequiredBackfillsOnlyFromTheBoundaryThatRequiredThem() {
    // BUSY: the scheduler lets the backfill wait, so only the main entries are written.
    List<Emitted> out = mux.merge(liveCreateTable(), MainStreamState.BUSY, P1);
    assertEquals(3, out.size());
    assertNull(out.get(0).position().backfills(), "the begin resumes before the create-table: nothing required");
    assertNull(out.get(1).position().backfills(), "still inside the transaction that requires it");
    String required = out.get(2).position().backfills();
    assertNotNull(required, "the commit's position carries the required backfill");
    assertTrue(required.contains("\"t\""), required);
    assertEquals(C1, out.get(2).position().lastCommit());
  }

  @Test
  void noBackfillInsideAMainStreamTransaction() {
    List<Emitted> live = liveCreateTable();
    mux.merge(live.subList(0, 2), MainStreamState.IN_TRANSACTION, P0);
    now += 10_000;
    assertEquals(List.of(), mux.merge(List.of(), MainStreamState.IN_TRANSACTION, P0), "never inside a transaction");
    List<Emitted> out = mux.merge(live.subList(2, 3), MainStreamState.IDLE, P1);
    assertEquals(1, out.size(), "the poll of the commit ends with it: " + out);
    assertEquals(C1, out.get(0).entry().watermark());
    List<Emitted> next = mux.merge(List.of(), MainStreamState.IDLE, P1);
    assertTrue(!next.isEmpty() && next.get(0).entry().message() instanceof Begin b && b.backfill(),
        "the backfill follows the main transaction's commit, in the next poll: " + next);
  }

  @Test
  void aBusyMainStreamYieldsToTheBackfillOnlyAfterTheMaximumDelay() {
    mux.merge(liveCreateTable(), MainStreamState.BUSY, P1);
    now += BackfillScheduler.MAX_LOW_PRIORITY_DELAY_MILLIS - 1;
    assertEquals(List.of(), mux.merge(List.of(), MainStreamState.BUSY, P1), "busy: the backfill waits");
    now += 1;
    List<Emitted> out = mux.merge(List.of(), MainStreamState.BUSY, P1);
    assertTrue(out.get(0).entry().message() instanceof Begin b && b.backfill(), out.toString());
    assertEquals(C1.nextMinor(), out.get(0).entry().watermark());
  }

  /** P, not the last commit record: a heartbeat past C1 moves the major of the next backfill transaction. */
  @Test
  void aHeartbeatMovesTheBackfillsWatermarkToTheMainStreamsPosition() {
    mux.merge(liveCreateTable(), MainStreamState.BUSY, P1);
    SourcePosition p2 = new SourcePosition(V, C2, Map.of("lsn", 0x3000L));
    List<Emitted> out = mux.merge(List.of(new Emitted(null, p2, true)), MainStreamState.IDLE, p2);
    assertTrue(out.get(0).isHeartbeat());
    assertNotNull(out.get(0).position().backfills(), "a heartbeat's position keeps the required backfills");
    assertEquals(C2.nextMinor(), out.get(1).entry().watermark());
    assertEquals(C2, out.get(1).position().lastCommit());
  }

  @Test
  void closeClosesTheOpenCopy() {
    mux.merge(liveCreateTable(), MainStreamState.IDLE, P1);
    mux.merge(List.of(), MainStreamState.IDLE, P1);
    mux.close();
    assertEquals(1, opened.size());
    assertTrue(opened.get(0).closed);
  }

  @Test
  void aVerifyTransactionFollowsAtABoundaryAndTheRequestTravelsWithThePositionsUntilAnswered() {
    io.pg2lite.protocol.schema.QualifiedName t = new io.pg2lite.protocol.schema.QualifiedName("public", "t");
    io.pg2lite.backfill.verify.VerifyTable table = new io.pg2lite.backfill.verify.VerifyTable(
        new Relation("public", "t", RowKey.of("id")), new TableMetadata(2200, 16384, Map.of("id", 1)),
        new java.util.TreeMap<>(Map.of("id", ColumnSpec.of(1, "int8"))));
    io.pg2lite.backfill.verify.VerifySource source = vt -> new io.pg2lite.backfill.verify.TableSnapshot() {
      @Override public Watermark watermark() { return C1; }
      @Override public io.pg2lite.backfill.verify.TableDigests scan(
          io.pg2lite.protocol.message.Verify.KeyRange range, java.util.function.LongConsumer paced) {
        io.pg2lite.backfill.verify.TableDigests d = new io.pg2lite.backfill.verify.TableDigests(table, List.of("id"),
            new io.pg2lite.protocol.verify.Buckets.Hashed(1));
        d.add(List.of(Value.of(1L)));
        return d;
      }
      @Override public void exclude(io.pg2lite.backfill.verify.TableDigests d, java.util.Collection<List<Value>> keys,
          io.pg2lite.protocol.message.Verify.KeyRange range) {}
      @Override public void close() {}
    };
    StreamMultiplexer verifying = new StreamMultiplexer(new BackfillStream(
        new BackfillStateMachine(List.of(), C0, new Random(1)), request -> new FakeCopy(), new BackfillScheduler(1), 10,
        C0, () -> now), null, new io.pg2lite.backfill.verify.VerifyStream(source, q -> table, () -> List.of(t),
            q -> false, C0, null, () -> now));
    verifying.verify(new io.pg2lite.backfill.verify.VerifyRequest("v-1", null, null));
    Watermark pre = C0.majorOnly().nextMajor();
    List<Emitted> main = List.of(new Emitted(new ChangeLogEntry(pre, 0, new Begin(7L, null, false)), P0, false),
        new Emitted(new ChangeLogEntry(C1, 1, new Commit(0, null)), P1, true));
    List<Emitted> out = verifying.merge(main, MainStreamState.IDLE, P1);
    assertEquals(5, out.size(), "the live transaction, then begin, verify, commit: " + out);
    assertNotNull(out.get(1).position().verifies(), "the live commit's position carries the unanswered request");
    io.pg2lite.protocol.message.Verify v = assertInstanceOf(io.pg2lite.protocol.message.Verify.class,
        out.get(3).entry().message());
    assertEquals(C1, v.since(), "since: the last commit when the table started");
    for (Emitted e : out.subList(2, 5)) {
      assertEquals(C1.nextMinor(), e.entry().watermark(), "under the backfill's next watermark");
      assertEquals(C1, e.position().lastCommit(), "at the main stream's position");
    }
    assertNull(out.get(4).position().verifies(), "answered at the verify transaction's commit");
    assertTrue(verifying.merge(List.of(), MainStreamState.IDLE, P1).isEmpty(), "once");
  }
}
