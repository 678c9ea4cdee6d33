package io.pg2lite.sink;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pg2lite.replica.apply.ReplicaHarness;
import io.pg2lite.replica.apply.Tables;
import io.pg2lite.protocol.codec.ChangeLogCodec;
import io.pg2lite.protocol.message.ChangeLogEntry;
import io.pg2lite.protocol.message.ChangeLogHeaders;
import io.pg2lite.protocol.message.SchemaChange;
import io.pg2lite.protocol.schema.Relation;
import io.pg2lite.protocol.schema.RowKey;
import io.pg2lite.protocol.testing.ChangeMessages;
import io.pg2lite.protocol.value.Row;
import io.pg2lite.protocol.value.Value;
import io.pg2lite.sink.FakeSinkContext;
import io.pg2lite.sink.Pg2liteSinkTask;
import java.lang.management.ManagementFactory;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import javax.management.ObjectName;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.connect.errors.RetriableException;
import org.apache.kafka.connect.header.ConnectHeaders;
import org.apache.kafka.connect.sink.SinkRecord;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The sink task around a real SQLite replica, driven as Connect drives it (a fake context stands
 * in for the worker): rebalances inside a transaction, a replica locked past the busy timeout, a
 * gap in the log, a full replica (retried, like a locked one, but without a time limit).
 */
class SinkTaskFaultsTest {
  private static final TopicPartition TP = new TopicPartition("log", 0);
  @TempDir Path dir;
  private final FakeSinkContext context = new FakeSinkContext(TP);
  private final ChangeLogCodec codec = new ChangeLogCodec();
  private final List<Pg2liteSinkTask> tasks = new ArrayList<>();

  private Pg2liteSinkTask start(Map<String, String> extra) {
    Pg2liteSinkTask task = new Pg2liteSinkTask();
    task.initialize(context);
    Map<String, String> props = new HashMap<>(Map.of("name", "faults-" + tasks.size(),
        "replica.path", dir.resolve("replica.db").toString(), "replica.busy.timeout.ms", "100"));
    props.putAll(extra);
    task.start(props);
    task.open(List.of(TP));
    tasks.add(task);
    return task;
  }

  @AfterEach
  void stopTasks() {
    tasks.forEach(Pg2liteSinkTask::stop);
  }

  /** The change log: a table, then {@code n} one-row transactions; records numbered from 0 at consecutive offsets. */
  private List<SinkRecord> log(int n) {
    ChangeMessages m = ChangeMessages.after("0/100").begin(1).change(Tables.createItem()).commit("0/200");
    for (int i = 1; i <= n; i++) {
      m.begin(1 + i).insert(Tables.ITEM, Row.of("id", Value.of(i))).commit("0/" + Integer.toHexString(0x200 + i * 16));
    }
    return records(m);
  }

  /** {@code m}'s records, numbered from 0 at consecutive offsets. */
  private List<SinkRecord> records(ChangeMessages m) {
    List<SinkRecord> out = new ArrayList<>();
    long offset = 0;
    for (ChangeLogEntry e : m.entries()) {
      out.add(record(e, offset, offset));
      offset++;
    }
    return out;
  }

  private SinkRecord record(ChangeLogEntry e, long offset, long seq) {
    ConnectHeaders h = new ConnectHeaders();
    h.addString(ChangeLogHeaders.REPLICA_VERSION, ReplicaHarness.VERSION);
    h.addString(ChangeLogHeaders.SEQ, Long.toString(seq));
    return new SinkRecord(TP.topic(), TP.partition(), null, null, null, codec.encode(e), offset, null, null, h);
  }

  private List<Long> ids() throws Exception {
    try (Connection c = DriverManager.getConnection("jdbc:sqlite:" + dir.resolve("replica.db"));
        Statement s = c.createStatement(); ResultSet rs = s.executeQuery("SELECT id FROM item ORDER BY id")) {
      List<Long> out = new ArrayList<>();
      while (rs.next()) {
        out.add(rs.getLong(1));
      }
      return out;
    }
  }

  @Test
  void aRebalanceInsideATransactionSpanningBatchesRollsItBackAndTheLogIsReadAgain() throws Exception {
    List<SinkRecord> log = log(2);
    Pg2liteSinkTask task = start(Map.of());
    task.put(log.subList(0, 3)); // the create-table transaction, committed
    task.put(log.subList(3, 5)); // begin and insert of the next one: open across batches
    task.close(List.of(TP));
    assertEquals(List.of(), ids(), "the open transaction is rolled back");
    task.open(List.of(TP));
    assertEquals(3L, context.offsets.get(TP), "resumes after the last commit record (offset 2)");
    task.put(log.subList(3, log.size())); // the open transaction delivered again from its begin
    assertEquals(List.of(1L, 2L), ids());
  }

  @Test
  void aReplicaLockedPastTheBusyTimeoutIsRetriedFromItsLastCommit() throws Exception {
    List<SinkRecord> log = log(3);
    Pg2liteSinkTask task = start(Map.of());
    task.put(log.subList(0, 3));
    try (Connection other = DriverManager.getConnection("jdbc:sqlite:" + dir.resolve("replica.db"));
        Statement s = other.createStatement()) {
      s.execute("BEGIN IMMEDIATE"); // another process holds the write lock
      context.offsets.clear();
      RetriableException busy = assertThrows(RetriableException.class, () -> task.put(log.subList(3, 9)));
      assertTrue(busy.getMessage().contains("SQLITE_BUSY"), busy.getMessage());
      assertTrue(context.timeout > 0, "Connect waits before the retry");
      assertEquals(3L, context.offsets.get(TP), "rewound to the record after the last commit");
      context.offsets.clear();
      task.put(log.subList(6, 9)); // Connect's retry of the failed call: passed over, rewound again
      assertEquals(3L, context.offsets.get(TP));
      s.execute("ROLLBACK");
    }
    task.put(log.subList(3, log.size())); // what the rewind delivers
    assertEquals(List.of(1L, 2L, 3L), ids());
  }

  @Test
  void aGapInTheLogStopsTheTaskAndAppliesNothingOfIt() throws Exception {
    List<SinkRecord> log = log(2);
    Pg2liteSinkTask task = start(Map.of());
    task.put(log.subList(0, 3));
    List<SinkRecord> afterGap = new ArrayList<>();
    for (SinkRecord r : log.subList(6, 9)) {
      afterGap.add(r.newRecord(r.topic(), r.kafkaPartition(), null, null, null, r.value(), r.timestamp(), r.headers()));
    }
    RuntimeException gap = assertThrows(RuntimeException.class, () -> task.put(afterGap));
    assertFalse(gap instanceof RetriableException, "a gap does not heal by retrying");
    assertTrue(gap.getMessage().startsWith("replica too far behind, resync"), gap.getMessage());
    assertEquals(List.of(), ids(), "nothing after the gap was applied");
  }

  /** {@code n} rows of a 2 KB name each, in one upstream transaction (about 25 pages of the replica). */
  private static void bigRows(ChangeMessages m, int first, int n) {
    for (int k = 0; k < n; k++) {
      m.insert(Tables.ITEM, Row.of("id", Value.of(first + k), "name", Value.of("n".repeat(2000) + (first + k))));
    }
  }

  /** The replica's size in pages, read as another process would. */
  private long pages() throws Exception {
    try (Connection c = DriverManager.getConnection("jdbc:sqlite:" + dir.resolve("replica.db"));
        Statement s = c.createStatement(); ResultSet rs = s.executeQuery("PRAGMA page_count")) {
      rs.next();
      return rs.getLong(1);
    }
  }

  private long fullSince(String connector) throws Exception {
    return (Long) ManagementFactory.getPlatformMBeanServer().getAttribute(
        new ObjectName("io.pg2lite:type=sink,connector=" + ObjectName.quote(connector)), "ReplicaFullSince");
  }

  /** A replica capped by replica.max.size.bytes: its SQLITE_FULL is retried like a full disk's. */
  @Test
  void aFullReplicaIsRetriedFromItsLastCommitWithoutATimeLimitAndLosesNothing() throws Exception {
    ChangeMessages m = ChangeMessages.after("0/100").begin(1).change(Tables.createItem()).commit("0/200");
    for (int i = 1; i <= 40; i++) {
      m.begin(1 + i);
      bigRows(m, i * 1000, 50);
      m.commit("0/" + Integer.toHexString(0x200 + i * 16));
    }
    List<SinkRecord> log = records(m);
    Pg2liteSinkTask first = start(Map.of());
    first.put(log.subList(0, 3)); // the table
    first.stop();
    tasks.remove(first);
    Pg2liteSinkTask small = start(Map.of("name", "full-small", "replica.max.size.bytes",
        Long.toString((pages() + 60) * 4096), "retry.timeout.ms", "0")); // a locked replica would fail at once
    RetriableException full = null;
    int from = 3;
    for (; from < log.size() && full == null; from += 52) {
      context.offsets.clear();
      try {
        small.put(log.subList(from, Math.min(log.size(), from + 52))); // one upstream transaction a batch
      } catch (RetriableException e) {
        full = e;
      }
    }
    assertNotNull(full, "the replica never filled up (test set-up)");
    assertTrue(full.getMessage().contains("SQLITE_FULL"), full.getMessage());
    assertEquals(500, context.timeout, "Connect waits the first backoff");
    List<Long> kept = ids();
    assertFalse(kept.isEmpty(), "the transactions before the full one are kept");
    assertEquals(0, kept.size() % 50, "whole transactions only");
    long next = 3 + kept.size() / 50 * 52L;
    assertEquals(next, context.offsets.get(TP), "rewound to the record after the last commit");
    long since = fullSince("full-small");
    assertTrue(since > 0, "the MBean shows the replica full: " + since);
    context.offsets.clear();
    small.put(log.subList((int) next, (int) next + 52)); // Connect's retry of the failed call: passed over
    assertEquals(next, context.offsets.get(TP));
    RetriableException again = assertThrows(RetriableException.class,
        () -> small.put(log.subList((int) next, log.size()))); // what the rewind delivers: still no room
    assertTrue(again.getMessage().contains("SQLITE_FULL"), again.getMessage());
    assertEquals(1_000, context.timeout, "the backoff doubles; retry.timeout.ms = 0 does not end it");
    assertEquals(since, fullSince("full-small"), "the same fault");
    assertEquals(kept, ids(), "nothing more applied, nothing lost");
    small.stop();
    tasks.remove(small);
    Pg2liteSinkTask roomy = start(Map.of("name", "full-roomy"));
    roomy.put(log.subList((int) (long) context.offsets.get(TP), log.size()));
    assertEquals(2000, ids().size(), "every row once, nothing lost, nothing twice");
    assertEquals(-1, fullSince("full-roomy"));
  }

  /**
   * SQLite rolls a transaction back by itself on SQLITE_FULL and then refuses ROLLBACK: the
   * replica's statements and schema must be reset all the same, or the retry would look for the
   * table under the name the failed transaction gave it, which SQLite no longer knows.
   */
  @Test
  void aFullReplicaUndoesTheSchemaChangeOfTheFailedTransactionForTheRetry() throws Exception {
    Relation goods = new Relation("public", "goods", RowKey.of("id"));
    ChangeMessages m = ChangeMessages.after("0/100").begin(1).change(Tables.createItem()).commit("0/200")
        .begin(2).change(new SchemaChange.RenameTable(Tables.ITEM.table(), goods.table()));
    for (int k = 1; k <= 50; k++) {
      m.insert(goods, Row.of("id", Value.of(k), "name", Value.of("n".repeat(2000) + k)));
    }
    List<SinkRecord> log = records(m.commit("0/300"));
    Pg2liteSinkTask first = start(Map.of());
    first.put(log.subList(0, 3)); // the table, committed
    first.stop();
    tasks.remove(first);
    Pg2liteSinkTask small = start(Map.of("replica.max.size.bytes", Long.toString((pages() + 6) * 4096)));
    List<SinkRecord> renameAndRows = log.subList(3, log.size());
    for (int attempt = 1; attempt <= 3; attempt++) {
      RuntimeException full = assertThrows(RuntimeException.class, () -> small.put(renameAndRows));
      assertInstanceOf(RetriableException.class, full, "attempt " + attempt + ": " + full.getMessage());
      assertTrue(full.getMessage().contains("SQLITE_FULL"), "attempt " + attempt + ": " + full.getMessage());
      assertEquals(3L, context.offsets.get(TP), "rewound to the record after the table's commit");
      small.put(renameAndRows); // Connect's retry of the failed call: passed over
    }
    small.stop();
    tasks.remove(small);
    Pg2liteSinkTask roomy = start(Map.of());
    roomy.put(renameAndRows);
    try (Connection c = DriverManager.getConnection("jdbc:sqlite:" + dir.resolve("replica.db"));
        Statement s = c.createStatement(); ResultSet rs = s.executeQuery("SELECT count(*) FROM goods")) {
      rs.next();
      assertEquals(50, rs.getLong(1));
    }
  }
}
