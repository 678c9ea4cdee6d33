package io.pg2lite.backfill;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.pg2lite.backfill.copy.TableCopy;
import io.pg2lite.backfill.copy.TableCopySource;
import io.pg2lite.backfill.schedule.BackfillScheduler;
import io.pg2lite.backfill.schedule.MainStreamState;
import io.pg2lite.backfill.state.BackfillRequest;
import io.pg2lite.backfill.state.BackfillStateMachine;
import io.pg2lite.backfill.state.BackfillStateMachineTest;
import io.pg2lite.protocol.message.ChangeLogEntry;
import io.pg2lite.protocol.message.Commit;
import io.pg2lite.protocol.message.DataChange;
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

/**
 * Which copies may read a shared snapshot (issue 33, small tables copied together): only requests
 * required, in their present form, before the snapshot was asked for. A table required later, a
 * failed copy, or a row-key change asks for a new one.
 */
class SnapshotSharingTest {
  static final Watermark START = Watermark.parse("0a");
  long now;
  final List<String> opens = new ArrayList<>();
  boolean failNext;

  /** Records each open as "table:shared" or "table:new"; every copy has one row. */
  final TableCopySource source = new TableCopySource() {
    @Override
    public TableCopy open(BackfillRequest request) throws java.sql.SQLException {
      return open(request, false);
    }

    @Override
    public TableCopy open(BackfillRequest request, boolean share) throws java.sql.SQLException {
      opens.add(request.table().name() + (share ? ":shared" : ":new"));
      if (failNext) {
        failNext = false;
        throw new java.sql.SQLException("canceling statement due to lock timeout", "55P03");
      }
      return new OneRow(request.table());
    }
  };
  final BackfillStateMachine state = new BackfillStateMachine(List.of(), START, new Random(7));
  final BackfillStream stream = new BackfillStream(state, source, new BackfillScheduler(2), 10, START, () -> now);

  static final class OneRow implements TableCopy {
    final QualifiedName table;
    boolean read;

    OneRow(QualifiedName table) {
      this.table = table;
    }

    @Override public Watermark snapshot() { return START; }
    @Override public Relation relation() { return new Relation(table.schema(), table.name(), new RowKey(List.of("id"), null)); }
    @Override public List<String> columns() { return List.of("a"); }
    @Override public BackfillStatus status() { return new BackfillStatus(read ? 1 : 0, 1, null); }
    @Override public void close() {}
    @Override public boolean finished() { return read; }

    @Override
    public List<List<Value>> next(int maxRows, long maxBytes) {
      if (read) {
        return List.of();
      }
      read = true;
      return List.of(List.of(Value.of(1), Value.of("v")));
    }
  }

  private void require(String... tables) {
    for (String t : tables) {
      stream.observe(new ChangeLogEntry(START.nextMinor(), 1,
          BackfillStateMachineTest.createTable(new QualifiedName("public", t), "a")));
    }
  }

  int transactions;

  /** Runs the backfill until nothing is required (at most 50 transactions). */
  private void drain() {
    for (int i = 0; i < 50 && state.hasRequired(); i++) {
      now += 1000;
      List<ChangeLogEntry> tx = stream.nextTransaction(MainStreamState.IDLE);
      transactions += tx.isEmpty() ? 0 : 1;
      tx.forEach(stream::observe);
    }
    assertEquals(List.of(), state.required());
  }

  @Test
  void tablesRequiredTogetherShareOneSnapshot() {
    require("a", "b", "c");
    drain();
    assertEquals(3, opens.size(), opens.toString());
    assertEquals(1, opens.stream().filter(o -> o.endsWith(":new")).count(), "one snapshot for three: " + opens);
    assertEquals(true, opens.get(0).endsWith(":new"), "the first copy asks for it: " + opens);
    assertEquals(2, transactions, "a small table goes on in the transaction of the one before (2 batches each)");
  }

  @Test
  void aTableRequiredAfterTheSnapshotGetsItsOwn() {
    require("a", "b");
    now += 1000;
    stream.nextTransaction(MainStreamState.IDLE).forEach(stream::observe); // the first copy: snapshot taken
    require("late");
    drain();
    assertEquals(List.of("late:new"), opens.stream().filter(o -> o.startsWith("late")).toList(), opens.toString());
  }

  @Test
  void aRowKeyChangeOrAFailedCopyEndsTheSharing() {
    require("a", "b", "c", "d", "e");
    now += 1000;
    stream.nextTransaction(MainStreamState.IDLE).forEach(stream::observe); // two copies, one snapshot
    int before = opens.size();
    stream.observe(new ChangeLogEntry(START.nextMajor(), 1, new DataChange.Update(
        new Relation("public", "x", new RowKey(List.of("id"), null)), Row.of("id", Value.of(1)),
        Row.of("id", Value.of(2)))));
    stream.observe(new ChangeLogEntry(Watermark.parse("0c"), 2, new Commit(1, null)));
    failNext = true;
    drain();
    List<String> after = opens.subList(before, opens.size());
    assertEquals(true, after.get(0).endsWith(":new"), "after a row-key change: " + opens);
    assertEquals(true, after.get(1).endsWith(":new"), "after a failed open: " + opens);
  }
}
