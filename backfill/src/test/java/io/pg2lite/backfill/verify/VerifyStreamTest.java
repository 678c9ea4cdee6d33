package io.pg2lite.backfill.verify;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pg2lite.protocol.message.Begin;
import io.pg2lite.protocol.message.ChangeLogEntry;
import io.pg2lite.protocol.message.Commit;
import io.pg2lite.protocol.message.DataChange;
import io.pg2lite.protocol.message.Message;
import io.pg2lite.protocol.message.Rollback;
import io.pg2lite.protocol.message.SchemaChange;
import io.pg2lite.protocol.message.Verify;
import io.pg2lite.protocol.schema.ColumnSpec;
import io.pg2lite.protocol.schema.QualifiedName;
import io.pg2lite.protocol.schema.Relation;
import io.pg2lite.protocol.schema.RowKey;
import io.pg2lite.protocol.schema.TableMetadata;
import io.pg2lite.protocol.value.Row;
import io.pg2lite.protocol.value.Value;
import io.pg2lite.protocol.verify.Buckets;
import io.pg2lite.protocol.watermark.Watermark;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Deque;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.function.LongConsumer;
import org.junit.jupiter.api.Test;

/**
 * The verification's ordering rules, with a table of ten rows in memory for the snapshot and a
 * worker the test steps: a table starts at a boundary with {@code since} the last commit, the
 * keys committed transactions touch afterwards are taken out up to the message (a rolled-back
 * one's are not), and what makes a table not comparable says so.
 */
class VerifyStreamTest {
  private static final QualifiedName T = new QualifiedName("public", "t");
  private static final Relation R = new Relation("public", "t", RowKey.of("id"));
  private static final VerifyTable TABLE = new VerifyTable(R, new TableMetadata(1, 2, Map.of("id", 1)),
      new TreeMap<>(Map.of("id", ColumnSpec.of(1, "int8"), "v", ColumnSpec.of(2, "text"))));

  private final Set<Long> excluded = new HashSet<>();
  private final List<Integer> exclusionRounds = new ArrayList<>();
  private final Deque<Runnable> worker = new ArrayDeque<>();
  private boolean copying;
  private long now = 1_000;
  private long commit = 10;

  private final VerifySource source = table -> new TableSnapshot() {
    @Override
    public Watermark watermark() {
      return Watermark.of(commit + 1);
    }

    @Override
    public TableDigests scan(Verify.KeyRange range, LongConsumer paced) {
      TableDigests d = new TableDigests(TABLE, List.of("id", "v"), new Buckets.Ranges(1, 10, 2));
      for (long id = 1; id <= 10; id++) {
        d.add(List.of(Value.of(id), Value.of("v" + id)));
      }
      return d;
    }

    @Override
    public void exclude(TableDigests digests, Collection<List<Value>> keys, Verify.KeyRange range) {
      exclusionRounds.add(keys.size());
      for (List<Value> k : keys) {
        long id = ((Value.Int) k.get(0)).value();
        if (id <= 10 && excluded.add(id)) {
          digests.exclude(List.of(Value.of(id), Value.of("v" + id)));
        }
      }
    }

    @Override
    public void close() {}
  };

  private VerifyStream stream(String stored) {
    return new VerifyStream(source, q -> q.equals(T) ? TABLE : null, () -> List.of(T), q -> copying,
        Watermark.of(commit), stored, () -> now).readOn(worker::add);
  }

  private void runWorker() {
    while (!worker.isEmpty()) {
      worker.poll().run();
    }
  }

  @Test
  void theKeysCommittedAfterSinceAreTakenOutAndARolledBackTransactionsAreNot() {
    VerifyStream s = stream(null);
    s.request(new VerifyRequest("r1", null, null));
    assertTrue(s.requestsJson().contains("\"r1\""), "an unanswered request is stored with the position");
    assertTrue(next(s).isEmpty(), "started (since = the last commit), reading on the worker");
    tx(s, new DataChange.Update(R, null, Row.of("id", Value.of(3L), "v", Value.of("new"))));
    rolledBack(s, new DataChange.Delete(R, Row.of("id", Value.of(5L))));
    tx(s, new DataChange.Insert(R, Row.of("id", Value.of(99L), "v", Value.of("x"))),
        new DataChange.Update(R, Row.of("id", Value.of(7L)), Row.of("id", Value.of(70L), "v", Value.of("moved"))));
    assertTrue(next(s).isEmpty(), "still reading");
    runWorker();
    Verify v = verifyOf(next(s));
    assertEquals(Watermark.of(10), v.since());
    assertEquals(Verify.Result.COMPARED, v.result());
    assertEquals(2, v.excluded(), "3 (updated) and 7 (its key moved); 5's delete rolled back; 99, 70 not in the snapshot");
    assertEquals(Set.of(3L, 7L), excluded);
    assertEquals(8, v.digests().stream().mapToLong(Verify.Digest::rows).sum());
    assertNull(s.requestsJson(), "answered: nothing left to store");
  }

  @Test
  void manyTouchedKeysAreTakenOutOnTheWorkerFirst() {
    VerifyStream s = stream(null);
    s.request(new VerifyRequest("r1", List.of(T), null));
    next(s);
    runWorker();
    List<Message> inserts = new ArrayList<>();
    for (long id = 100; id < 100 + VerifyStream.SYNC_KEYS + 1; id++) {
      inserts.add(new DataChange.Insert(R, Row.of("id", Value.of(id), "v", Value.of("x"))));
    }
    tx(s, inserts.toArray(Message[]::new));
    assertTrue(next(s).isEmpty(), "a round of lookups on the worker");
    assertEquals(List.of(), exclusionRounds, "not on the caller's thread");
    tx(s, new DataChange.Delete(R, Row.of("id", Value.of(4L))));
    runWorker();
    Verify v = verifyOf(next(s));
    assertEquals(List.of(VerifyStream.SYNC_KEYS + 1, 1), exclusionRounds, "the rest, the one key since, inline");
    assertEquals(1, v.excluded());
  }

  @Test
  void aTruncateASchemaChangeOrACopyMakeItNotComparable() {
    assertEquals("the table was truncated while it was verified",
        notComparable(new DataChange.Truncate(List.of(R))));
    assertTrue(notComparable(new SchemaChange.DropColumn(T, "v")).startsWith("the table's schema changed"));
    copying = true;
    VerifyStream s = stream(null);
    s.request(new VerifyRequest("r1", List.of(T), null));
    assertEquals("the table is being backfilled", verifyOf(next(s)).reason());
  }

  @Test
  void aTableNotPublishedAndAKeyRangeOnAnotherKeyAreNotComparable() {
    VerifyStream s = stream(null);
    s.request(new VerifyRequest("r1", List.of(new QualifiedName("public", "nope")), null));
    Verify v = verifyOf(next(s));
    assertEquals(Verify.Result.NOT_COMPARABLE, v.result());
    assertEquals("the table is not published", v.reason());
    assertEquals(new QualifiedName("public", "nope"), v.relation().table());
  }

  @Test
  void aStoredRequestIsAnsweredAfterARestartAndTheIntervalAsksByItself() {
    VerifyStream s = stream("[{\"id\":\"r9\",\"tables\":[{\"schema\":\"public\",\"name\":\"t\"}],\"keyFrom\":2,"
        + "\"keyTo\":4}]");
    next(s);
    runWorker();
    Verify v = verifyOf(next(s));
    assertEquals("r9", v.id());
    assertEquals(new Verify.KeyRange(2, 4), v.keyRange());

    VerifyStream every = stream(null).every(60_000);
    assertTrue(next(every).isEmpty());
    now += 60_000;
    assertTrue(next(every).isEmpty(), "asked by itself, reading");
    assertTrue(every.requestsJson().contains("every-60000ms"));
    runWorker();
    assertEquals(Verify.Result.COMPARED, verifyOf(next(every)).result());
  }

  @Test
  void aTableChangedUnderTheSnapshotIsNotComparableAndATransientFaultReadsItAgain() {
    int[] opens = {0};
    VerifySource failing = table -> {
      opens[0]++;
      throw new io.pg2lite.backfill.state.SchemaIncompatibilityException("table public.t in the snapshot has no "
          + "primary key or replica identity over [id]: its row key changed");
    };
    VerifyStream s = new VerifyStream(failing, q -> TABLE, () -> List.of(T), q -> false, Watermark.of(commit), null,
        () -> now).readOn(worker::add);
    s.request(new VerifyRequest("r1", List.of(T), null));
    next(s);
    runWorker();
    Verify v = verifyOf(next(s));
    assertTrue(v.reason().startsWith("the table's schema changed while it was verified"), v.reason());
    assertEquals(1, opens[0], "not read again: the change log will describe the new shape");

    VerifySource flaky = table -> {
      if (opens[0]++ < 2) {
        throw new java.sql.SQLException("the connection was closed", "08006");
      }
      return source.open(table);
    };
    VerifyStream again = new VerifyStream(flaky, q -> TABLE, () -> List.of(T), q -> false, Watermark.of(commit), null,
        () -> now).readOn(worker::add);
    again.request(new VerifyRequest("r2", List.of(T), null));
    next(again);
    runWorker();
    assertTrue(next(again).isEmpty(), "a transient fault: read again later");
    tx(again, new DataChange.Insert(R, Row.of("id", Value.of(200L), "v", Value.of("x"))));
    now += VerifyStream.RETRY_DELAY_MS;
    assertTrue(next(again).isEmpty(), "the second attempt, from a new snapshot, reading");
    runWorker();
    Verify answered = verifyOf(next(again));
    assertEquals(Verify.Result.COMPARED, answered.result());
    assertEquals(Watermark.of(commit), answered.since(), "since: the boundary the new attempt started at");
    assertEquals(3, opens[0]);
  }

  private String notComparable(Message change) {
    VerifyStream s = stream(null);
    s.request(new VerifyRequest("r1", List.of(T), null));
    next(s);
    tx(s, change);
    runWorker();
    Verify v = verifyOf(next(s));
    assertEquals(Verify.Result.NOT_COMPARABLE, v.result());
    return v.reason();
  }

  private List<ChangeLogEntry> next(VerifyStream s) {
    return s.nextTransaction(Watermark.of(commit).nextMinor());
  }

  private static Verify verifyOf(List<ChangeLogEntry> tx) {
    assertEquals(3, tx.size(), "begin, verify, commit: " + tx);
    assertTrue(assertInstanceOf(Begin.class, tx.get(0).message()).backfill(), "a low-priority transaction");
    assertEquals(1, assertInstanceOf(Commit.class, tx.get(2).message()).changes());
    return assertInstanceOf(Verify.class, tx.get(1).message());
  }

  private void tx(VerifyStream s, Message... changes) {
    Watermark w = Watermark.of(++commit);
    s.observe(new ChangeLogEntry(w, 0, new Begin(1L, null, false, null)));
    assertTrue(s.nextTransaction(w.nextMinor()).isEmpty(), "never inside a transaction");
    for (Message m : changes) {
      s.observe(new ChangeLogEntry(w, 1, m));
    }
    s.observe(new ChangeLogEntry(w, changes.length + 1, new Commit(changes.length, null)));
  }

  private void rolledBack(VerifyStream s, Message... changes) {
    Watermark w = Watermark.of(commit + 1);
    s.observe(new ChangeLogEntry(w, 0, new Begin(1L, null, false, null)));
    for (Message m : changes) {
      s.observe(new ChangeLogEntry(w, 1, m));
    }
    s.observe(new ChangeLogEntry(w, changes.length + 1, new Rollback("cut")));
  }
}
