package io.pg2lite.sink.bench;

import io.pg2lite.follower.Follower;
import io.pg2lite.protocol.message.ChangeLogHeaders;
import io.pg2lite.protocol.watermark.Watermark;
import io.pg2lite.testkit.ConnectorConfigs;
import io.pg2lite.testkit.TestStack;
import io.pg2lite.testkit.postgres.TestDatabase;
import io.pg2lite.testkit.sqlite.SqliteFiles;
import io.pg2lite.testkit.support.Await;
import io.pg2lite.testkit.support.BenchSettings;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import javax.management.ObjectName;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;

/**
 * Replica followers (issue 25, docs/follower.md) on the in-process stack (Postgres, broker, one
 * Connect worker running the exactly-once source and a sink; the followers run in this JVM too):
 * <pre>
 * mvn -B -q install -DskipTests
 * mvn -B -q -pl connector-sink exec:java -Dexec.classpathScope=test \
 *     -Dexec.mainClass=io.pg2lite.sink.bench.FollowerBench [-Dexec.args="restore snapshots fanout"]
 * </pre>
 * or, without installing (what docs/performance.md ran):
 * <pre>
 * mvn -B -q -pl connector-sink -am package -DskipTests dependency:build-classpath \
 *     -Dmdep.outputFile=/tmp/cp.txt -Dmdep.includeScope=test
 * java -cp connector-sink/target/test-classes:connector-sink/target/classes:$(cat /tmp/cp.txt) \
 *     io.pg2lite.sink.bench.FollowerBench [restore snapshots fanout] 2&gt;/tmp/follower-bench.log
 * </pre>
 * Parts (arguments pick them; default all):
 * <ul>
 *   <li>{@code restore}: a change log of {@code -Dpg2lite.bench.rows} (default 1,000,000) inserts
 *       then as many updates of table {@code big} (1,000-row transactions; names padded by
 *       {@code -Dpg2lite.bench.pad=26} characters so that 1M rows make a ~120 MB replica); the sink
 *       publishes a snapshot ({@code -Dpg2lite.bench.sinkSnapshotMs}, default 30 s). Then 100-row
 *       update transactions go on every 100 ms, and after {@code -Dpg2lite.bench.liveBeforeMs}
 *       (10 s) a new follower with {@code snapshot.dir} starts on an empty directory: timed from
 *       {@code Follower.start} to its replica holding the newest commit the topic held at that
 *       moment (restore = until {@code start} returns, catch-up = the rest), cold (the first
 *       restore in this JVM) and warm (a second one); then a follower without a store replays the
 *       whole log to the same kind of point.
 *   <li>{@code snapshots}: the same replay with the live writes stopped, without snapshots, with
 *       the follower taking snapshots itself, and without again ({@code snapshot.interval.ms}:
 *       60 s, or a third of the first replay's time when that is under 3 minutes, so that at least
 *       two are taken; {@code -Dpg2lite.bench.followerSnapshotMs} overrides).
 *   <li>{@code fanout}: a second database and topic; {@code -Dpg2lite.bench.fanoutRows} rows
 *       (default 300,000) inserted in 100-row transactions as fast as one connection goes, with 1
 *       follower, then with {@code -Dpg2lite.bench.followers} (default 10; the 9 more catch up
 *       first, untimed), then with 1 again. The source's throughput is the rows over the time from
 *       the first statement to the last commit being readable in the topic (a read_committed
 *       consumer tails the topic throughout). CPU per applied row: each follower's thread
 *       ({@code pg2lite-<name>}: poll, decode, apply, SQLite) per row; the JVM's CPU too. Every
 *       replica is then compared with Postgres ({@code count(*), sum(qty), sum(id)}).
 * </ul>
 * Ends with one line for scripts: {@code follower-bench: key=value ...}.
 */
public final class FollowerBench {
  private static final Duration LONG = Duration.ofMinutes(20);
  private static final Map<String, String> SUMMARY = new LinkedHashMap<>();

  public static void main(String[] args) throws Exception {
    List<String> parts = args.length == 0 ? List.of("restore", "snapshots", "fanout") : List.of(args);
    try (TestStack stack = TestStack.create(); SqliteFiles files = new SqliteFiles()) {
      if (parts.contains("restore") || parts.contains("snapshots")) {
        BigLog log = BigLog.build(stack, Integer.getInteger("pg2lite.bench.rows", 1_000_000));
        if (parts.contains("restore")) {
          restoreVsReplay(stack, files, log);
        }
        if (parts.contains("snapshots")) {
          snapshotCost(stack, files, log);
        }
        log.close();
      }
      if (parts.contains("fanout")) {
        fanOut(stack, files, Integer.getInteger("pg2lite.bench.fanoutRows", 300_000),
            Integer.getInteger("pg2lite.bench.followers", 10));
      }
      System.out.println("follower-bench: " + SUMMARY.entrySet().stream().map(e -> e.getKey() + "=" + e.getValue())
          .collect(Collectors.joining(" ")));
    }
  }

  // ---- part 1: restore + catch-up vs replay -------------------------------------------------

  private static void restoreVsReplay(TestStack stack, SqliteFiles files, BigLog log) throws Exception {
    System.out.println("\n== A new follower: restore + catch-up vs replay, 100-row transactions every 100 ms going on");
    try (LiveWrites live = new LiveWrites(log.db, log.rows)) {
      // A log that has moved on since the snapshot: some seconds of live writes to catch up on.
      Thread.sleep(Long.getLong("pg2lite.bench.liveBeforeMs", 10_000));
      FollowRun cold = followTo(log.tail, settings(stack, log.topic, "restore-cold", files.newFile("restore-cold"),
          Map.of("snapshot.dir", log.store.toString())));
      cold.print("restore + catch-up, cold");
      FollowRun warm = followTo(log.tail, settings(stack, log.topic, "restore-warm", files.newFile("restore-warm"),
          Map.of("snapshot.dir", log.store.toString())));
      warm.print("restore + catch-up, warm");
      FollowRun replay = followTo(log.tail, settings(stack, log.topic, "replay", files.newFile("replay"), Map.of()));
      replay.print("replay of the whole log");
      System.out.printf("replay / restore+catch-up: %.1fx cold, %.1fx warm (targets: <= 5 s and >= 20x)%n",
          replay.totalS() / cold.totalS(), replay.totalS() / warm.totalS());
      System.out.printf("live writes meanwhile: %,d rows%n", live.rows.get());
      SUMMARY.put("restore_cold_s", f1(cold.totalS()));
      SUMMARY.put("restore_cold_restore_s", f1(cold.startS));
      SUMMARY.put("restore_warm_s", f1(warm.totalS()));
      SUMMARY.put("restore_warm_restore_s", f1(warm.startS));
      SUMMARY.put("replay_s", f1(replay.totalS()));
      SUMMARY.put("ratio_cold", f1(replay.totalS() / cold.totalS()));
      SUMMARY.put("ratio_warm", f1(replay.totalS() / warm.totalS()));
    }
  }

  /** One follower from start to the newest commit the topic held when it started; closed after. */
  private record FollowRun(double startS, double catchUpS, long restoredFrom, long targetOffset, long fileBytes,
      double threadCpuS) {
    double totalS() {
      return startS + catchUpS;
    }

    void print(String what) {
      System.out.printf("%-28s %6.2f s = start %5.2f s (%s) + catch-up %5.2f s to offset %,d (%,d records); "
          + "replica + WAL %.0f MB; follower thread CPU %.1f s%n", what, totalS(), startS,
          restoredFrom >= 0 ? "restored the snapshot at offset " + String.format("%,d", restoredFrom) : "no restore",
          catchUpS, targetOffset, targetOffset - Math.max(restoredFrom, 0), fileBytes / 1e6, threadCpuS);
    }
  }

  private static FollowRun followTo(CommitTail tail, Map<String, String> settings) throws Exception {
    Commit target = tail.latest();
    long t0 = System.nanoTime();
    try (Follower f = Follower.start(settings)) {
      long t1 = System.nanoTime();
      if (!f.awaitWatermark(target.watermark(), LONG)) {
        throw new IllegalStateException(f.config().name + " did not reach " + target + " in " + LONG);
      }
      long t2 = System.nanoTime();
      if (f.position().offset() < target.offset()) {
        throw new IllegalStateException(f.config().name + " at " + f.position() + ", short of " + target);
      }
      Path replica = Path.of(settings.get("replica.path"));
      return new FollowRun((t1 - t0) / 1e9, (t2 - t1) / 1e9, f.restoredFrom().orElse(-1), target.offset(),
          fileBytes(replica), threadCpuNanos("pg2lite-" + f.config().name) / 1e9);
    }
  }

  // ---- part 3: what taking snapshots costs a follower's apply rate ---------------------------

  private static void snapshotCost(TestStack stack, SqliteFiles files, BigLog log) throws Exception {
    System.out.println("\n== A follower replaying the whole log (no live writes): without and with its own snapshots");
    Commit target = log.tail.awaitQuiet(Duration.ofSeconds(2));
    FollowRun without = followTo(log.tail, settings(stack, log.topic, "apply-plain", files.newFile("apply-plain"),
        Map.of()));
    long intervalMs = Long.getLong("pg2lite.bench.followerSnapshotMs",
        without.totalS() >= 180 ? 60_000 : Math.max(1000, (long) (without.totalS() * 1000 / 3)));
    Path store = Files.createTempDirectory("pg2lite-follower-bench-own");
    Path replica = files.newFile("apply-snapshotting");
    Map<String, String> withSettings = settings(stack, log.topic, "apply-snapshotting", replica,
        Map.of("snapshot.dir", store.toString(), "snapshot.interval.ms", String.valueOf(intervalMs),
            "snapshot.keep", "1000"));
    long t0 = System.nanoTime();
    double snapshotThreadCpuS;
    double applyThreadCpuS;
    try (Follower f = Follower.start(withSettings)) {
      if (f.restoredFrom().isPresent()) {
        throw new IllegalStateException("the follower's own store was not empty");
      }
      if (!f.awaitWatermark(target.watermark(), LONG) || f.position().offset() < target.offset()) {
        throw new IllegalStateException(f.config().name + " did not reach " + target);
      }
      snapshotThreadCpuS = snapshotThreadCpuNanos(f.config().name) / 1e9;
      applyThreadCpuS = threadCpuNanos("pg2lite-" + f.config().name) / 1e9;
    }
    double withS = (System.nanoTime() - t0) / 1e9;
    long taken;
    try (Stream<Path> s = Files.walk(store)) {
      taken = s.filter(p -> p.toString().endsWith(".json")).count();
    }
    // Without again, after: the mean of the two brackets the run with snapshots (JIT and page-cache drift).
    FollowRun again = followTo(log.tail, settings(stack, log.topic, "apply-plain-again",
        files.newFile("apply-plain-again"), Map.of()));
    double withoutS = (without.totalS() + again.totalS()) / 2;
    String pg = checksum(log.db, "big");
    String lite = checksum(replica, "big");
    System.out.printf("%-28s %6.2f s (%,.0f records/s), %.2f s after (%,.0f records/s)%n", "without snapshots",
        without.totalS(), target.offset() / without.totalS(), again.totalS(), target.offset() / again.totalS());
    System.out.printf("%-28s %6.2f s (%,.0f records/s), snapshot.interval.ms=%d: %d snapshots, snapshot thread CPU "
        + "%.1f s, follower thread CPU %.1f s (without: %.1f s)%n", "with snapshots", withS, target.offset() / withS,
        intervalMs, taken, snapshotThreadCpuS, applyThreadCpuS, without.threadCpuS());
    System.out.printf("apply rate with / without (mean of both): %.2f (target >= 0.90); replica %s Postgres (count, "
        + "sum(qty), sum(id)): %s%n", withoutS / withS, pg.equals(lite) ? "equals" : "DIFFERS FROM", lite);
    if (!pg.equals(lite)) {
      throw new IllegalStateException("replica " + lite + " != Postgres " + pg);
    }
    SUMMARY.put("apply_plain_s", f1(withoutS));
    SUMMARY.put("apply_snapshotting_s", f1(withS));
    SUMMARY.put("snapshot_interval_ms", String.valueOf(intervalMs));
    SUMMARY.put("snapshots_taken", String.valueOf(taken));
    SUMMARY.put("apply_ratio", String.format("%.2f", withoutS / withS));
  }

  // ---- part 2: one source, 1 vs N followers ---------------------------------------------------

  private static void fanOut(TestStack stack, SqliteFiles files, int rows, int count) throws Exception {
    System.out.printf("%n== Fan-out: %,d rows in 100-row transactions, 1 follower vs %d (in this JVM)%n", rows, count);
    TestDatabase db = stack.postgres().newDatabase("fanout_bench");
    db.execute("CREATE TABLE item (id bigint PRIMARY KEY, name text, qty int, price numeric, at timestamptz)",
        "CREATE PUBLICATION fan_pub FOR TABLE item");
    String topic = stack.kafka().uniqueTopicName("fanout");
    stack.connect().rest().putConnector("fan-source", ConnectorConfigs.source(stack, "fan-source", db.name(), "fan",
        topic));
    stack.connect().rest().awaitRunning("fan-source", Duration.ofSeconds(90));
    List<Follower> followers = new ArrayList<>();
    try (CommitTail tail = new CommitTail(stack.kafka().bootstrapServers(), topic)) {
      String lsn = write(db, 0, 20_000); // warm-up, uncounted
      followers.add(Follower.start(settings(stack, topic, "fan-1", files.newFile("fan-1"), Map.of())));
      awaitAll(followers, tail.awaitCovering(lsn).watermark());
      System.out.printf("%-12s %9s %9s %11s %13s %22s %13s%n", "followers", "write s", "source s", "source r/s",
          "all caught s", "follower CPU µs/row", "JVM µs/row");
      Round one = round(db, tail, followers, 20_000, rows, "1");
      for (int i = 2; i <= count; i++) {
        followers.add(Follower.start(settings(stack, topic, "fan-" + i, files.newFile("fan-" + i), Map.of())));
      }
      awaitAll(followers, tail.latest().watermark());
      Round many = round(db, tail, followers, 20_000 + rows, rows, String.valueOf(count));
      String pg = checksum(db, "item");
      int equal = 0;
      for (Follower f : followers) {
        String lite = checksum(f.config().replica.replicaPath, "item");
        equal += lite.equals(pg) ? 1 : 0;
        if (!lite.equals(pg)) {
          System.out.printf("%s: replica %s, Postgres %s%n", f.config().name, lite, pg);
        }
      }
      while (followers.size() > 1) {
        followers.remove(followers.size() - 1).close();
      }
      Round again = round(db, tail, followers, 20_000 + 2 * rows, rows, "1 again");
      boolean lastEqual = checksum(followers.get(0).config().replica.replicaPath, "item").equals(checksum(db, "item"));
      double base = (one.sourceRowsPerS() + again.sourceRowsPerS()) / 2;
      double drop = 1 - many.sourceRowsPerS() / base;
      System.out.printf("source throughput with %d followers: %.1f%% below the mean of the 1-follower rounds "
          + "(target < 10%%)%n", count, drop * 100);
      System.out.printf("replicas equal to Postgres (count, sum(qty), sum(id) = %s): %d of %d after the %d-follower "
          + "round, fan-1 after the last: %s%n", pg, equal, count, count, lastEqual);
      SUMMARY.put("fan_src_rows_s_1", f0(one.sourceRowsPerS()));
      SUMMARY.put("fan_src_rows_s_" + count, f0(many.sourceRowsPerS()));
      SUMMARY.put("fan_src_rows_s_1_again", f0(again.sourceRowsPerS()));
      SUMMARY.put("fan_drop_pct", f1(drop * 100));
      SUMMARY.put("follower_cpu_us_row", f1(many.meanFollowerMicrosPerRow()));
      SUMMARY.put("replicas_equal", equal + "/" + count);
    } finally {
      for (Follower f : followers) {
        f.close();
      }
    }
  }

  private record Round(int rows, double writeS, double sourceS, double allS, long jvmCpuNs, List<Long> threadCpuNs) {
    double sourceRowsPerS() {
      return rows / sourceS;
    }

    double meanFollowerMicrosPerRow() {
      return threadCpuNs.stream().mapToLong(Long::longValue).average().orElse(0) / 1e3 / rows;
    }
  }

  private static Round round(TestDatabase db, CommitTail tail, List<Follower> followers, int from, int rows,
      String label) throws Exception {
    List<Long> threadCpu0 = followerCpu(followers);
    long cpu0 = BenchSettings.processCpuNanos();
    long t0 = System.nanoTime();
    String lsn = write(db, from, rows);
    double writeS = (System.nanoTime() - t0) / 1e9;
    Commit last = tail.awaitCovering(lsn);
    double sourceS = (last.seenNanos() - t0) / 1e9;
    awaitAll(followers, last.watermark());
    double allS = (System.nanoTime() - t0) / 1e9;
    long jvmCpu = BenchSettings.processCpuNanos() - cpu0;
    List<Long> threadCpu = followerCpu(followers);
    for (int i = 0; i < threadCpu.size(); i++) {
      threadCpu.set(i, threadCpu.get(i) - threadCpu0.get(i));
    }
    Round r = new Round(rows, writeS, sourceS, allS, jvmCpu, threadCpu);
    long min = threadCpu.stream().mapToLong(Long::longValue).min().orElse(0);
    long max = threadCpu.stream().mapToLong(Long::longValue).max().orElse(0);
    System.out.printf("%-12s %9.1f %9.1f %11.0f %13.1f %22s %13.1f%n", label, writeS, sourceS, r.sourceRowsPerS(),
        allS, String.format("%.1f (%.1f-%.1f)", r.meanFollowerMicrosPerRow(), min / 1e3 / rows, max / 1e3 / rows),
        jvmCpu / 1e3 / rows);
    return r;
  }

  private static List<Long> followerCpu(List<Follower> followers) {
    List<Long> out = new ArrayList<>();
    for (Follower f : followers) {
      out.add(threadCpuNanos("pg2lite-" + f.config().name));
    }
    return out;
  }

  private static void awaitAll(List<Follower> followers, String watermark) throws InterruptedException {
    for (Follower f : followers) {
      if (!f.awaitWatermark(watermark, LONG)) {
        throw new IllegalStateException(f.config().name + " did not reach " + watermark);
      }
    }
  }

  /**
   * Inserts rows {@code from + 1 .. from + count} of item in 100-row transactions from one
   * connection, as fast as it goes; returns an LSN inside the last one (its commit is at or after it).
   */
  static String write(TestDatabase db, int from, int count) throws SQLException {
    try (Connection c = db.connect(); Statement s = c.createStatement()) {
      c.setAutoCommit(false);
      String lsn = null;
      for (int done = 0; done < count; done += 100) {
        s.execute("INSERT INTO item SELECT g, 'item ' || g, g % 100, (g % 1000) / 7.0, now() FROM generate_series("
            + (from + done + 1) + ", " + (from + done + 100) + ") g");
        if (done + 100 >= count) {
          try (ResultSet rs = s.executeQuery("SELECT pg_current_wal_insert_lsn()")) {
            rs.next();
            lsn = rs.getString(1);
          }
        }
        c.commit();
      }
      return lsn;
    }
  }

  // ---- the big log of parts 1 and 3 ----------------------------------------------------------

  /** Table big in its own database, its source and a sink publishing snapshots, and a tail of the topic. */
  private static final class BigLog implements AutoCloseable {
    /** Characters added to each name, so that 1M rows make a replica of ~120 MB (94 MB without). */
    static final int PAD = Integer.getInteger("pg2lite.bench.pad", 26);

    final TestDatabase db;
    final String topic;
    final Path store;
    final CommitTail tail;
    final int rows;

    private BigLog(TestDatabase db, String topic, Path store, CommitTail tail, int rows) {
      this.db = db;
      this.topic = topic;
      this.store = store;
      this.tail = tail;
      this.rows = rows;
    }

    static BigLog build(TestStack stack, int rows) throws Exception {
      TestDatabase db = stack.postgres().newDatabase("follower_bench");
      db.execute("CREATE TABLE big (id bigint PRIMARY KEY, name text, qty int, price numeric, at timestamptz)",
          "CREATE PUBLICATION bench_pub FOR TABLE big");
      String topic = stack.kafka().uniqueTopicName("followers");
      var rest = stack.connect().rest();
      rest.putConnector("bench-source", ConnectorConfigs.source(stack, "bench-source", db.name(), "bench", topic));
      rest.awaitRunning("bench-source", Duration.ofSeconds(90));
      Path store = Files.createTempDirectory("pg2lite-follower-bench-store");
      Path sinkReplica = Files.createTempDirectory("pg2lite-follower-bench-sink").resolve("sink.db");
      Map<String, String> sink = new HashMap<>(ConnectorConfigs.sink(stack, "bench-sink", topic, sinkReplica));
      sink.put("snapshot.dir", store.toString());
      sink.put("snapshot.interval.ms", System.getProperty("pg2lite.bench.sinkSnapshotMs", "30000"));
      sink.put("snapshot.keep", "2");
      rest.putConnector("bench-sink", sink);
      CommitTail tail = new CommitTail(stack.kafka().bootstrapServers(), topic);

      System.out.printf("== The change log: %,d inserts, then %,d updates, in 1,000-row transactions%n", rows, rows);
      long t0 = System.nanoTime();
      for (int done = 0; done < rows; done += 1000) {
        db.execute("INSERT INTO big SELECT g, 'item ' || g || ' ' || repeat('x', " + PAD + "), g % 100, (g % 1000) / "
            + "7.0, now() FROM generate_series(" + (done + 1) + ", " + (done + 1000) + ") g");
      }
      for (int done = 0; done < rows; done += 1000) {
        db.execute("UPDATE big SET qty = qty + 1, at = now() WHERE id > " + done + " AND id <= " + (done + 1000));
      }
      double writeS = (System.nanoTime() - t0) / 1e9;
      // Nothing else writes: the last commit is the newest once the tail has read nothing new for a while.
      Commit last = tail.awaitQuiet(Duration.ofSeconds(3));
      double logS = (last.seenNanos() - t0) / 1e9;
      System.out.printf("written in %.1f s; in the topic after %.1f s (%,.0f row changes/s): %,d records, last "
          + "commit %s%n", writeS, logS, 2.0 * rows / logS, last.offset() + 1, last.watermark());
      Await.until("the sink at offset " + last.offset(), LONG, () -> stateOffset(sinkReplica) >= last.offset());
      ObjectName metrics = new ObjectName("io.pg2lite:type=sink,connector=" + ObjectName.quote("bench-sink"));
      Await.until("a snapshot of the sink at offset " + last.offset(), LONG,
          () -> attr(metrics, "LastSnapshotOffset") >= last.offset());
      System.out.printf("sink replica %.0f MB; its snapshot: %.0f MB in %d ms (VACUUM INTO, SHA-256, publish)%n",
          Files.size(sinkReplica) / 1e6, attr(metrics, "LastSnapshotBytes") / 1e6, attr(metrics, "LastSnapshotMillis"));
      SUMMARY.put("log_row_changes", String.valueOf(2L * rows));
      SUMMARY.put("snapshot_mb", f0(attr(metrics, "LastSnapshotBytes") / 1e6));
      return new BigLog(db, topic, store, tail, rows);
    }

    @Override
    public void close() {
      tail.close();
    }
  }

  /** 100-row update transactions every 100 ms on big, on a thread of their own, until closed. */
  private static final class LiveWrites implements AutoCloseable {
    final AtomicLong rows = new AtomicLong();
    private final ScheduledExecutorService timer = Executors.newSingleThreadScheduledExecutor();
    private final Connection c;

    LiveWrites(TestDatabase db, int tableRows) throws SQLException {
      c = db.connect();
      AtomicLong next = new AtomicLong();
      timer.scheduleAtFixedRate(() -> {
        long from = next.getAndAdd(100) % tableRows;
        try (Statement s = c.createStatement()) {
          rows.addAndGet(s.executeUpdate("UPDATE big SET qty = qty + 1, at = now() WHERE id > " + from
              + " AND id <= " + (from + 100)));
        } catch (SQLException e) {
          System.err.println("live write failed: " + e);
        }
      }, 0, 100, TimeUnit.MILLISECONDS);
    }

    @Override
    public void close() throws Exception {
      timer.shutdown();
      timer.awaitTermination(10, TimeUnit.SECONDS);
      c.close();
    }
  }

  // ---- the topic's newest commit, as a read_committed reader sees it ------------------------

  /** A commit record: its offset, its watermark, and when the tail read it. */
  record Commit(long offset, String watermark, long seenNanos) {}

  /** Reads the topic from its start on a thread of its own (headers only), noting the newest commit record. */
  static final class CommitTail implements AutoCloseable {
    private final KafkaConsumer<byte[], byte[]> consumer;
    private final Thread thread;
    private volatile Commit latest;
    private volatile boolean running = true;

    CommitTail(String bootstrap, String topic) {
      consumer = new KafkaConsumer<>(Map.of(
          ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap,
          ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed",
          ConsumerConfig.FETCH_MAX_WAIT_MS_CONFIG, 5,
          ConsumerConfig.MAX_PARTITION_FETCH_BYTES_CONFIG, 8 * 1024 * 1024),
          new ByteArrayDeserializer(), new ByteArrayDeserializer());
      TopicPartition tp = new TopicPartition(topic, 0);
      thread = new Thread(() -> {
        consumer.assign(List.of(tp));
        consumer.seekToBeginning(List.of(tp));
        while (running) {
          for (ConsumerRecord<byte[], byte[]> r : consumer.poll(Duration.ofMillis(50))) {
            if ("commit".equals(header(r, ChangeLogHeaders.KIND))) {
              latest = new Commit(r.offset(), header(r, ChangeLogHeaders.WATERMARK), System.nanoTime());
            }
          }
        }
        consumer.close(Duration.ZERO);
      }, "bench-commit-tail");
      thread.start();
    }

    Commit latest() {
      Await.until("a commit in the topic", LONG, () -> latest != null);
      return latest;
    }

    /** The newest commit once one at or after {@code lsn} is read. */
    Commit awaitCovering(String lsn) {
      Watermark w = Watermark.fromLsn(lsn);
      long deadline = System.nanoTime() + LONG.toNanos();
      while (latest == null || Watermark.parse(latest.watermark()).compareTo(w) < 0) {
        if (System.nanoTime() > deadline) {
          throw new IllegalStateException("no commit at or after " + lsn + " in " + LONG + "; newest " + latest);
        }
        LockSupport.parkNanos(1_000_000);
      }
      return latest;
    }

    /** The newest commit once no newer one has come for {@code quiet}. */
    Commit awaitQuiet(Duration quiet) {
      Commit c = latest();
      while (System.nanoTime() - c.seenNanos() < quiet.toNanos() || latest != c) {
        c = latest;
        LockSupport.parkNanos(50_000_000);
      }
      return c;
    }

    private static String header(ConsumerRecord<byte[], byte[]> r, String key) {
      Header h = r.headers().lastHeader(key);
      return h == null || h.value() == null ? null : new String(h.value(), StandardCharsets.UTF_8);
    }

    @Override
    public void close() {
      running = false;
      try {
        thread.join();
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }
  }

  // ---- helpers --------------------------------------------------------------------------------

  private static Map<String, String> settings(TestStack stack, String topic, String name, Path replica,
      Map<String, String> extra) {
    Map<String, String> s = new HashMap<>(extra);
    s.put("topic", topic);
    s.put("kafka.bootstrap.servers", stack.kafka().bootstrapServers());
    s.put("replica.path", replica.toString());
    s.put("name", name);
    return s;
  }

  /** {@code count/sum(qty)/sum(id)} of a table in Postgres. */
  static String checksum(TestDatabase db, String table) throws SQLException {
    return db.queryColumn("SELECT count(*) || '/' || coalesce(sum(qty), 0) || '/' || coalesce(sum(id), 0) FROM "
        + table).get(0);
  }

  /** {@code count/sum(qty)/sum(id)} of a table in a replica. */
  static String checksum(Path replica, String table) throws SQLException {
    try (Connection c = SqliteFiles.open(replica); Statement s = c.createStatement();
        ResultSet rs = s.executeQuery("SELECT count(*), coalesce(sum(qty), 0), coalesce(sum(id), 0) FROM " + table)) {
      rs.next();
      return rs.getLong(1) + "/" + rs.getLong(2) + "/" + rs.getLong(3);
    }
  }

  static long stateOffset(Path replica) {
    try (Connection c = SqliteFiles.open(replica); Statement s = c.createStatement();
        ResultSet rs = s.executeQuery("SELECT kafka_offset FROM \"_pg2lite.state\"")) {
      return rs.next() ? rs.getLong(1) : -1;
    } catch (SQLException e) {
      return -1; // not created yet
    }
  }

  private static long attr(ObjectName name, String attribute) {
    try {
      return (Long) ManagementFactory.getPlatformMBeanServer().getAttribute(name, attribute);
    } catch (Exception e) {
      return -1;
    }
  }

  private static final ThreadMXBean THREADS = ManagementFactory.getThreadMXBean();

  /** CPU time of the live thread named {@code name}, 0 when there is none. */
  private static long threadCpuNanos(String name) {
    for (Thread t : Thread.getAllStackTraces().keySet()) {
      if (t.getName().equals(name)) {
        return Math.max(0, THREADS.getThreadCpuTime(t.getId()));
      }
    }
    return 0;
  }

  /** CPU time of the snapshot thread of follower {@code name} ({@code pg2lite-snapshot-...<name>}), 0 when none. */
  private static long snapshotThreadCpuNanos(String name) {
    long sum = 0;
    for (Thread t : Thread.getAllStackTraces().keySet()) {
      if (t.getName().startsWith("pg2lite-snapshot-") && t.getName().endsWith(name)) {
        sum += Math.max(0, THREADS.getThreadCpuTime(t.getId()));
      }
    }
    return sum;
  }

  private static long fileBytes(Path replica) throws java.io.IOException {
    Path wal = Path.of(replica + "-wal");
    return Files.size(replica) + (Files.exists(wal) ? Files.size(wal) : 0);
  }

  private static String f0(double v) {
    return String.format("%.0f", v);
  }

  private static String f1(double v) {
    return String.format("%.1f", v);
  }
}
