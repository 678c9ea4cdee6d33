package io.pg2lite.sink.bench;

import io.pg2lite.testkit.ConnectorConfigs;
import io.pg2lite.testkit.TestStack;
import io.pg2lite.testkit.postgres.TestDatabase;
import io.pg2lite.testkit.sqlite.SqliteFiles;
import io.pg2lite.testkit.support.Await;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import javax.management.ObjectName;

/**
 * How much a snapshot saves a new replica, and what taking snapshots costs the apply loop, on the
 * in-process stack (Postgres, broker, one Connect worker):
 * {@code mvn -B -q -pl connector-sink exec:java -Dexec.classpathScope=test
 * -Dexec.mainClass=io.pg2lite.sink.bench.SnapshotBench [-Dpg2lite.bench.rows=1000000]
 * [-Dpg2lite.bench.catchUpRows=10000] [-Dpg2lite.bench.log=live|copy]}.
 *
 * <p>The change log holds a table of {@code rows} rows, written either by live transactions of
 * 1,000 inserts ({@code live}, the default: a log as it grows in use) or by the table's initial
 * copy ({@code copy}: backfill records of 1,000 rows each, the fastest log to replay), and then
 * {@code catchUpRows} more rows in 100-row transactions. Measured, each from connector creation
 * to the replica holding every row:
 * <ul>
 *   <li>a new replica restored from a snapshot taken after the copy, then caught up;
 *   <li>a new replica replaying the whole log;
 *   <li>the same replay while the sink takes a snapshot every second (the apply rate with
 *       snapshots against without).
 * </ul>
 * Ends with one line for scripts:
 * {@code snapshot-bench: log=L replay_s=X restore_catchup_s=Y speedup=Z apply_ratio=R snapshot_ms=M snapshot_mb=B}.
 */
public final class SnapshotBench {
  private static final Duration LONG = Duration.ofMinutes(10);

  public static void main(String[] args) throws Exception {
    int rows = Integer.getInteger("pg2lite.bench.rows", 1_000_000);
    int catchUp = Integer.getInteger("pg2lite.bench.catchUpRows", 10_000);
    try (TestStack stack = TestStack.create(); SqliteFiles files = new SqliteFiles()) {
      TestDatabase db = stack.postgres().newDatabase("snapshot_bench");
      boolean live = !"copy".equals(System.getProperty("pg2lite.bench.log", "live"));
      db.execute("CREATE TABLE big (id bigint PRIMARY KEY, name text, qty int, price numeric, at timestamptz)");
      if (!live) {
        db.execute("INSERT INTO big SELECT g, 'item ' || g, g % 100, (g % 1000) / 7.0, now() FROM generate_series(1, "
            + rows + ") g");
      }
      db.execute("CREATE PUBLICATION bench_pub FOR TABLE big");
      String topic = stack.kafka().uniqueTopicName("snapshots");
      var rest = stack.connect().rest();
      rest.putConnector("bench-source", ConnectorConfigs.source(stack, "bench-source", db.name(), "bench", topic));
      rest.awaitRunning("bench-source", Duration.ofSeconds(90));

      // A first sink applies the copy and snapshots it.
      Path store = Files.createTempDirectory("pg2lite-snapshot-bench");
      Path first = files.newFile("first");
      start(stack, "bench-a", topic, first, Map.of("snapshot.dir", store.toString(), "snapshot.interval.ms", "2000",
          "snapshot.keep", "1"));
      if (live) {
        insert(db, 0, rows, 1000);
      }
      awaitRows(first, rows);
      ObjectName a = mbean("bench-a");
      long copied = offset(first);
      Await.until("a snapshot of the copied table", LONG, () -> attr(a, "LastSnapshotOffset") >= copied);
      long snapshotMs = attr(a, "LastSnapshotMillis");
      long snapshotBytes = attr(a, "LastSnapshotBytes");
      rest.delete("bench-a");
      System.out.printf("log: %s, %,d rows%n", live ? "live transactions of 1,000 inserts" : "the initial copy", rows);
      System.out.printf("snapshot of %,d rows: %.1f MB in %d ms (VACUUM INTO, checksum, publish)%n", rows,
          snapshotBytes / 1e6, snapshotMs);

      insert(db, rows, catchUp, 100);
      int total = rows + catchUp;
      // The sink at the head of the log first, so the topic holds every record before timing.
      Path head = files.newFile("head");
      start(stack, "bench-head", topic, head, Map.of());
      awaitRows(head, total);
      rest.delete("bench-head");

      double restoreS = timeToRows(stack, "bench-restore", topic, files.newFile("restored"), total,
          Map.of("snapshot.dir", store.toString()));
      System.out.printf("new replica from the snapshot + %,d rows of catch-up: %.1f s (restored from offset %d)%n",
          catchUp, restoreS, attr(mbean("bench-restore"), "RestoredSnapshotOffset"));
      rest.delete("bench-restore");
      double replayS = timeToRows(stack, "bench-replay", topic, files.newFile("replayed"), total, Map.of());
      rest.delete("bench-replay");
      System.out.printf("new replica replaying the whole log: %.1f s (%,.0f rows/s)%n", replayS, total / replayS);
      Path busy = Files.createTempDirectory("pg2lite-snapshot-bench-busy");
      double withSnapshotsS = timeToRows(stack, "bench-snapshotting", topic, files.newFile("snapshotting"), total,
          Map.of("snapshot.dir", busy.toString(), "snapshot.interval.ms", "1000", "snapshot.keep", "1"));
      long taken = attr(mbean("bench-snapshotting"), "SnapshotsTaken");
      rest.delete("bench-snapshotting");
      System.out.printf("the same replay taking a snapshot every second: %.1f s (%,.0f rows/s, %d snapshots)%n",
          withSnapshotsS, total / withSnapshotsS, taken);
      System.out.printf("snapshot-bench: log=%s replay_s=%.1f restore_catchup_s=%.1f speedup=%.1f apply_ratio=%.2f "
          + "snapshot_ms=%d snapshot_mb=%.1f%n", live ? "live" : "copy", replayS, restoreS, replayS / restoreS, replayS / withSnapshotsS,
          snapshotMs, snapshotBytes / 1e6);
    }
  }

  /** Inserts rows {@code from + 1 .. from + count} in transactions of {@code perTransaction} rows. */
  private static void insert(TestDatabase db, int from, int count, int perTransaction) throws SQLException {
    for (int done = 0; done < count; done += perTransaction) {
      db.execute("INSERT INTO big SELECT g, 'item ' || g, g % 100, (g % 1000) / 7.0, now() FROM generate_series("
          + (from + done + 1) + ", " + (from + done + perTransaction) + ") g");
    }
  }

  private static void start(TestStack stack, String name, String topic, Path replica, Map<String, String> extra) {
    Map<String, String> c = new HashMap<>(ConnectorConfigs.sink(stack, name, topic, replica));
    c.putAll(extra);
    stack.connect().rest().putConnector(name, c);
  }

  /** Seconds from creating a sink connector to its replica holding {@code rows} rows of big; the sink keeps running. */
  private static double timeToRows(TestStack stack, String name, String topic, Path replica, int rows,
      Map<String, String> extra) {
    long t0 = System.nanoTime();
    start(stack, name, topic, replica, extra);
    awaitRows(replica, rows);
    return (System.nanoTime() - t0) / 1e9;
  }

  private static void awaitRows(Path replica, long rows) {
    Await.until(rows + " rows of big in " + replica, LONG, () -> {
      try (Connection c = SqliteFiles.open(replica); Statement s = c.createStatement();
          ResultSet rs = s.executeQuery("SELECT count(*) FROM big")) {
        return rs.next() && rs.getLong(1) >= rows;
      } catch (SQLException e) {
        return false; // not created yet
      }
    });
  }

  private static long offset(Path replica) throws SQLException {
    try (Connection c = SqliteFiles.open(replica); Statement s = c.createStatement();
        ResultSet rs = s.executeQuery("SELECT kafka_offset FROM \"_pg2lite.state\"")) {
      rs.next();
      return rs.getLong(1);
    }
  }

  private static ObjectName mbean(String connector) throws Exception {
    return new ObjectName("io.pg2lite:type=sink,connector=" + ObjectName.quote(connector));
  }

  private static long attr(ObjectName name, String attribute) {
    try {
      return (Long) ManagementFactory.getPlatformMBeanServer().getAttribute(name, attribute);
    } catch (Exception e) {
      return -1;
    }
  }
}
