package io.pg2lite.source.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pg2lite.connect.hold.TestHolds;
import io.pg2lite.protocol.codec.ChangeLogCodec;
import io.pg2lite.protocol.message.ChangeLogEntry;
import io.pg2lite.protocol.message.MessageKind;
import io.pg2lite.testkit.TestStack;
import io.pg2lite.testkit.TestStackExtension;
import io.pg2lite.testkit.connect.ConnectWorker;
import io.pg2lite.testkit.connect.ConnectorStatus;
import io.pg2lite.testkit.kafka.TopicReader;
import io.pg2lite.testkit.support.Await;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.stream.LongStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/** Restarts, crashes and a lost slot: nothing lost, nothing applied twice, or a clear failure. */
@ExtendWith(TestStackExtension.class)
class SourceFailuresIT {
  private static final Duration WAIT = Duration.ofSeconds(90);

  @Test
  void restartsMidStreamLoseNothing(TestStack stack) throws Exception {
    try (SourceFixture f = new SourceFixture(stack, "fail_restart")) {
      f.db.execute("CREATE TABLE t (id bigint PRIMARY KEY)", "CREATE PUBLICATION fail_restart_pub FOR TABLE t");
      f.start();
      f.awaitEntries(3, WAIT);
      int n = 300;
      ExecutorService writer = Executors.newSingleThreadExecutor();
      Future<?> writes = writer.submit(() -> {
        for (int i = 1; i <= n; i++) {
          f.db.execute("INSERT INTO t VALUES (" + i + ")");
        }
        return null;
      });
      for (int r = 0; r < 2; r++) {
        int threshold = 20 + r * 200;
        Await.until("some rows written", WAIT, () -> f.awaitEntries(1, Duration.ofMillis(200)).size() > threshold);
        stack.connect().rest().restart(f.name);
        stack.connect().rest().awaitRunning(f.name, WAIT);
      }
      writes.get();
      writer.shutdown();
      Await.until("all " + n + " rows in the log", WAIT,
          () -> ReplayRule.insertedIds(f.awaitEntries(1, Duration.ofMillis(200)), "id").size() >= n);
      assertEquals(LongStream.rangeClosed(1, n).boxed().toList(), ReplayRule.insertedIds(f.entries(), "id"));
    }
  }

  /**
   * A worker dies in the middle of a large transaction and another takes over. With
   * exactly-once, read_committed consumers never see the partial transaction of one that fits in
   * one Kafka transaction (under {@code exactly.once.split.records}, raised here above its 100k
   * records; a larger one spans several, ADR 0016, HugeTransactionIT); the new task sends it
   * again whole.
   */
  @Test
  void exactlyOnceHidesATransactionCutByACrash(TestStack stack) throws Exception {
    ConnectWorker first = stack.newConnectWorker().start();
    ConnectWorker second = null;
    try (SourceFixture f = new SourceFixture(stack, "fail_eos", first)) {
      f.db.execute("CREATE TABLE t (id bigint PRIMARY KEY, pad text)", "CREATE PUBLICATION fail_eos_pub FOR TABLE t");
      Map<String, String> config = f.config();
      config.put("exactly.once.split.records", "200000");
      config.put("exactly.once.split.bytes", String.valueOf(1L << 30));
      f.start(config);
      f.awaitEntries(3, WAIT);
      // Held after 1,000 of its rows (TestHolds), the source is inside the transaction for
      // certain when the worker stops, however fast it would write the rest.
      try (TestHolds.Hold hold = TestHolds.holdAfter(TestHolds.TRANSACTION, f.slot(), 1_000)) {
        f.db.execute("INSERT INTO t SELECT g, repeat('p', 200) FROM generate_series(1, 100000) g");
        try (TopicReader raw = new TopicReader(stack.kafka().bootstrapServers(), f.topic, "read_uncommitted")) {
          Await.until("part of the big transaction written", WAIT,
              () -> !raw.read(1000, Duration.ofMillis(200)).isEmpty());
        }
        first.close(); // the task stops mid-transaction: its Kafka transaction is never committed
      }
      second = stack.newConnectWorker().groupId(first.groupId()).start();
      f.movedTo(second);
      ConnectWorker w = second;
      Await.until("task running again", WAIT, () -> w.rest().status(f.name).isRunning());
      Await.until("the big transaction committed", WAIT,
          () -> ReplayRule.insertedIds(f.awaitEntries(1, Duration.ofMillis(500)), "id").size() >= 100_000);
      List<ChangeLogEntry> log = f.entries();
      assertEquals(LongStream.rangeClosed(1, 100_000).boxed().toList(), ReplayRule.insertedIds(log, "id"));
      long begins = log.stream().filter(e -> e.kind() == MessageKind.BEGIN).count();
      assertEquals(2, begins, "read_committed sees the initial and the big transaction once each, nothing partial");
    } finally {
      first.close();
      if (second != null) {
        second.close();
      }
    }
  }

  /**
   * The same crash without exactly-once: the log keeps the partial transaction, so the restarted
   * source first writes a rollback, then the transaction whole.
   */
  @Test
  void atLeastOnceClosesACutTransactionWithARollback(TestStack stack) throws Exception {
    int rows = 50_000;
    ConnectWorker first = stack.newConnectWorker().set("exactly.once.source.support", "disabled").start();
    ConnectWorker second = null;
    try (SourceFixture f = new SourceFixture(stack, "fail_alo", first)) {
      f.db.execute("CREATE TABLE t (id bigint PRIMARY KEY, pad text)", "CREATE PUBLICATION fail_alo_pub FOR TABLE t");
      Map<String, String> config = f.config();
      config.remove("exactly.once.support");
      config.remove("transaction.boundary");
      f.start(config);
      f.awaitEntries(3, WAIT);
      // Held after 1,000 of its rows (TestHolds), the source is inside the transaction for
      // certain when the worker's graceful stop comes, however fast it would write the rest.
      try (TestHolds.Hold hold = TestHolds.holdAfter(TestHolds.TRANSACTION, f.slot(), 1_000)) {
        f.db.execute("INSERT INTO t SELECT g, repeat('p', 200) FROM generate_series(1, " + rows + ") g");
        Await.until("part of the big transaction written", WAIT,
            () -> f.awaitEntries(1000, Duration.ofMillis(200)).size() > 1000);
        first.close();
      }
      List<ChangeLogEntry> cut = f.awaitEntries(1_000_000, Duration.ofSeconds(2));
      assertTrue(cut.get(cut.size() - 1).kind() == MessageKind.DATA, "the log ends inside the transaction");
      second = stack.newConnectWorker().groupId(first.groupId()).set("exactly.once.source.support", "disabled").start();
      f.movedTo(second);
      ConnectWorker w = second;
      Await.until("task running again", WAIT, () -> w.rest().status(f.name).isRunning());
      Await.until("the big transaction committed", WAIT,
          () -> ReplayRule.insertedIds(f.awaitEntries(1, Duration.ofMillis(500)), "id").size() >= rows);
      List<ChangeLogEntry> log = f.entries();
      assertEquals(MessageKind.ROLLBACK, log.get(cut.size()).kind(), "a rollback closes the cut transaction");
      assertEquals(cut.get(cut.size() - 1).watermark(), log.get(cut.size()).watermark());
      assertEquals(LongStream.rangeClosed(1, rows).boxed().toList(), ReplayRule.insertedIds(log, "id"));
    } finally {
      first.close();
      if (second != null) {
        second.close();
      }
    }
  }

  @Test
  void aDroppedOrRecreatedSlotFailsTheTaskClearly(TestStack stack) throws Exception {
    try (SourceFixture f = new SourceFixture(stack, "fail_slot")) {
      f.db.execute("CREATE TABLE t (id bigint PRIMARY KEY)", "CREATE PUBLICATION fail_slot_pub FOR TABLE t");
      f.start();
      f.awaitEntries(3, WAIT);
      f.db.execute("INSERT INTO t VALUES (1)");
      f.awaitEntries(3, WAIT);
      f.awaitPositionStored(WAIT);
      f.stopConnector();
      Await.until("slot released", WAIT, () -> slotInactive(f));
      f.db.dropSlot("fail_slot_slot");

      f.register(f.config()); // same name: same stored offsets
      ConnectorStatus missing = stack.connect().rest().awaitFailed(f.name, WAIT);
      assertTrue(missing.failure().contains("replication slot fail_slot_slot is missing"), missing.failure());

      f.stopConnector();
      f.db.createLogicalSlot("fail_slot_slot");
      f.db.execute("INSERT INTO t VALUES (2)");
      f.register(f.config());
      ConnectorStatus recreated = stack.connect().rest().awaitFailed(f.name, WAIT);
      assertTrue(recreated.failure().contains("dropped and recreated"), recreated.failure());
    }
  }

  @Test
  void heartbeatsAdvanceTheSlotOfAnIdleDatabase(TestStack stack) throws Exception {
    try (SourceFixture f = new SourceFixture(stack, "fail_idle")) {
      f.db.execute("CREATE TABLE t (id bigint PRIMARY KEY)", "CREATE TABLE unpublished (id bigint)",
          "CREATE PUBLICATION fail_idle_pub FOR TABLE t");
      f.start();
      f.awaitEntries(3, WAIT);
      String before = f.db.queryColumn("SELECT confirmed_flush_lsn::text FROM pg_replication_slots "
          + "WHERE slot_name = 'fail_idle_slot'").get(0);
      f.db.execute("INSERT INTO unpublished SELECT generate_series(1, 10000)");
      String walNow = f.db.queryColumn("SELECT pg_current_wal_lsn()::text").get(0);
      Await.until("the slot confirms past the unpublished writes", WAIT, () -> {
        try {
          return !f.db.queryColumn("SELECT 1 FROM pg_replication_slots WHERE slot_name = 'fail_idle_slot' "
              + "AND confirmed_flush_lsn >= '" + walNow + "'::pg_lsn").isEmpty();
        } catch (java.sql.SQLException e) {
          throw new IllegalStateException(e);
        }
      });
      assertTrue(f.entries().size() == 3 || f.entries().stream().skip(3).noneMatch(e -> e.kind() == MessageKind.BEGIN),
          "heartbeats never write transactions into the change log; slot was at " + before);
    }
  }

  private static boolean slotInactive(SourceFixture f) {
    try {
      return f.db.queryColumn("SELECT active::text FROM pg_replication_slots WHERE slot_name = 'fail_slot_slot'")
          .stream().noneMatch("true"::equals);
    } catch (java.sql.SQLException e) {
      throw new IllegalStateException(e);
    }
  }

  static ChangeLogCodec codec() {
    return new ChangeLogCodec();
  }
}
