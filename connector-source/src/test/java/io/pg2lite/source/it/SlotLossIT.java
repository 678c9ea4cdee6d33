package io.pg2lite.source.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pg2lite.protocol.message.Begin;
import io.pg2lite.protocol.message.ChangeLogEntry;
import io.pg2lite.protocol.message.DataChange;
import io.pg2lite.protocol.watermark.Watermark;
import io.pg2lite.testkit.ConnectorConfigs;
import io.pg2lite.testkit.TestStack;
import io.pg2lite.testkit.TestStackExtension;
import io.pg2lite.testkit.connect.ConnectorStatus;
import io.pg2lite.testkit.postgres.PostgresServer;
import io.pg2lite.testkit.support.Await;
import java.lang.management.ManagementFactory;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import javax.management.ObjectName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Issue 35: a slot Postgres invalidates ({@code max_slot_wal_keep_size}) while the source is
 * paused, as a managed provider's limit does to a stalled consumer. The source names the cause at
 * once instead of Debezium's half-hour retry loop; with {@code resync.auto} it starts a new
 * lineage by itself. Each test has a server of its own: the setting is server-wide.
 */
@ExtendWith(TestStackExtension.class)
class SlotLossIT {
  private static final Duration WAIT = Duration.ofSeconds(90);

  @Test
  void aSlotInvalidatedWhilePausedIsNamedByValidateTheMetricAndTheFailedTask(TestStack stack) throws Exception {
    try (PostgresServer server = PostgresServer.startDedicated();
        SourceFixture f = new SourceFixture(stack, "slot_lost", server)) {
      Watermark version = startAndInvalidate(stack, f, Map.of());

      Map<String, List<String>> errors = stack.connect().rest().validate(ConnectorConfigs.SOURCE_CLASS, f.config());
      assertTrue(String.valueOf(errors.get("slot.name")).contains("was invalidated by Postgres (wal_removed"),
          "validate() names the lost slot: " + errors);
      Await.until("the metric shows the slot lost", Duration.ofSeconds(20),
          () -> slotStatus(f).equals("lost (wal_removed)"));
      long lag = (Long) attribute(f, "SlotLagBytes"); // read with the status, by the same query
      assertTrue(lag > (1L << 20), "the lost slot was behind more than max_slot_wal_keep_size: " + lag);

      long resumed = System.nanoTime();
      stack.connect().rest().resume(f.name);
      ConnectorStatus failed = stack.connect().rest().awaitFailed(f.name, Duration.ofSeconds(30));
      long seconds = Duration.ofNanos(System.nanoTime() - resumed).toSeconds();
      System.out.println("SlotLossIT: the task failed naming the lost slot " + seconds + " s after the resume");
      assertTrue(failed.failure().contains("replication slot slot_lost_slot was invalidated by Postgres (wal_removed")
          && failed.failure().contains("max_slot_wal_keep_size = 1MB") && failed.failure().contains("resync.auto"),
          failed.failure());
      assertTrue(failed.failure().contains(version.toString()) || failed.failure().contains("lost to this change log"),
          failed.failure());
      assertTrue(seconds <= 30, "failed " + seconds + " s after the resume");
    }
  }

  @Test
  void withResyncAutoANewLineageReplacesTheLostOneAndEveryTableIsCopiedAgain(TestStack stack) throws Exception {
    try (PostgresServer server = PostgresServer.startDedicated();
        SourceFixture f = new SourceFixture(stack, "slot_resync", server)) {
      Watermark previous = startAndInvalidate(stack, f, Map.of("resync.auto", "true"));
      f.db.execute("INSERT INTO t SELECT g, 'lost' FROM generate_series(101, 150) g"); // in the WAL the slot lost
      stack.connect().rest().resume(f.name);
      Await.until("a new lineage in the log", WAIT, () -> newLineageBegin(f.readAll(Duration.ofMillis(500))) != null);
      f.db.execute("INSERT INTO t VALUES (1000, 'after')");
      Await.until("the rows written while the slot was lost copied, and the row after streamed", WAIT,
          () -> idsAfterNewLineage(f.readAll(Duration.ofMillis(500))).containsAll(List.of(101L, 150L, 1000L)));

      List<ChangeLogEntry> log = f.allEntries(); // the fixture checked every record against ChangeLogRules
      ChangeLogEntry begin = newLineageBegin(log);
      Begin b = (Begin) begin.message();
      assertEquals(previous.toString(), b.lineage().previous());
      assertTrue(b.lineage().reason().contains("invalidated by Postgres (wal_removed"), b.lineage().reason());
      assertTrue(begin.watermark().isAfter(previous), "the new replica version is above the old one");
      assertEquals(1, log.stream().filter(e -> e.message() instanceof Begin x && x.lineage() != null).count());
      assertTrue(stack.connect().rest().status(f.name).isRunning(), "no person was needed");
      assertEquals(1L, attribute(f, "NewLineages"));
      assertTrue(slotStatus(f).equals("reserved") || slotStatus(f).equals("extended"), slotStatus(f));
      long lag = (Long) attribute(f, "SlotLagBytes");
      assertTrue(lag >= 0 && lag < (16L << 20), "the new slot streams: " + lag);
    }
  }

  /**
   * Starts the source, writes a row, pauses the connector (its walsender stays attached, as a
   * paused task's does), then makes Postgres invalidate the slot; returns the replica version.
   */
  private static Watermark startAndInvalidate(TestStack stack, SourceFixture f, Map<String, String> extra)
      throws Exception {
    f.db.execute("CREATE TABLE t (id bigint PRIMARY KEY, v text)", "CREATE TABLE filler (x text)",
        "CREATE PUBLICATION " + f.name + "_pub FOR TABLE t", "INSERT INTO t SELECT g, 'x' FROM generate_series(1, 100) g");
    Map<String, String> config = f.config();
    config.putAll(extra);
    f.start(config);
    f.awaitEntries(3, WAIT);
    f.awaitPositionStored(WAIT);
    Watermark version = f.allEntries().get(0).watermark().majorOnly();
    stack.connect().rest().pause(f.name);
    f.db.execute("ALTER SYSTEM SET max_slot_wal_keep_size = '1MB'", "SELECT pg_reload_conf()");
    Await.until("Postgres invalidated the slot", WAIT, () -> {
      try {
        f.db.execute("INSERT INTO filler SELECT repeat(md5(g::text), 64) FROM generate_series(1, 4000) g",
            "SELECT pg_switch_wal()", "CHECKPOINT");
        return f.db.queryColumn("SELECT wal_status FROM pg_replication_slots WHERE slot_name = '" + f.slot() + "'")
            .equals(List.of("lost"));
      } catch (java.sql.SQLException e) {
        throw new IllegalStateException(e);
      }
    });
    return version;
  }

  private static ChangeLogEntry newLineageBegin(List<ChangeLogEntry> log) {
    return log.stream().filter(e -> e.message() instanceof Begin b && b.lineage() != null).findFirst().orElse(null);
  }

  /** Ids inserted or copied after the new lineage's begin. */
  private static List<Long> idsAfterNewLineage(List<ChangeLogEntry> log) {
    int start = log.indexOf(newLineageBegin(log));
    return log.subList(start, log.size()).stream().flatMap(e -> {
      if (e.message() instanceof DataChange.Insert i) {
        return java.util.stream.Stream.of(((io.pg2lite.protocol.value.Value.Int) i.row().get("id")).value());
      }
      if (e.message() instanceof DataChange.Backfill bf) {
        return bf.rowValues().stream().map(r -> ((io.pg2lite.protocol.value.Value.Int) r.get(0)).value());
      }
      return java.util.stream.Stream.empty();
    }).toList();
  }

  private static String slotStatus(SourceFixture f) {
    return String.valueOf(attribute(f, "SlotStatus"));
  }

  private static Object attribute(SourceFixture f, String name) {
    try {
      ObjectName mbean = new ObjectName("io.pg2lite:type=source,connector=" + ObjectName.quote(f.name) + ",slot="
          + ObjectName.quote(f.slot()));
      return ManagementFactory.getPlatformMBeanServer().getAttribute(mbean, name);
    } catch (javax.management.JMException e) {
      throw new IllegalStateException(e);
    }
  }
}
