package io.pg2lite.sink.bench;

import io.pg2lite.testkit.support.Percentiles;
import io.pg2lite.testkit.ConnectorConfigs;
import io.pg2lite.testkit.TestStack;
import io.pg2lite.testkit.postgres.TestDatabase;
import io.pg2lite.testkit.sqlite.SqliteFiles;
import io.pg2lite.testkit.support.Await;
import io.pg2lite.testkit.support.BenchSettings;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;

/**
 * Backfill pacing: a 1M-row table copied while live transactions flow at a steady rate, on the
 * in-process stack (Postgres, broker, one Connect worker running the exactly-once source and the
 * sink), with the connectors' default settings:
 * {@code mvn -B -q -pl connector-sink exec:java -Dexec.classpathScope=test
 * -Dexec.mainClass=io.pg2lite.sink.bench.BackfillBench [-Dpg2lite.bench.rows=1000000]
 * [-Dpg2lite.bench.runs=3] [-Dpg2lite.bench.liveRate=10] [-Dpg2lite.source.<setting>=value]}
 * ({@code pg2lite.source.*} properties are passed to the source connector, to compare settings;
 * {@code -Dpg2lite.bench.split=true} splits the slowest samples at the topic).
 *
 * <p>Each run has its own database, topic and connectors. It measures, in order:
 * <ul>
 *   <li>idle: single-row live transactions at {@code liveRate} per second for 6 s (after a 2 s
 *       warm-up), each timed from its {@code COMMIT} to the row being visible in the replica;
 *   <li>copy: the same live load while {@code big} ({@code rows} rows) is added to the
 *       publication; the live latencies during the copy, and the copy rate into the replica
 *       ({@code ALTER PUBLICATION} to the replica showing the table complete);
 *   <li>idle copy: a second table of {@code rows} rows added with no live load: the copy rate
 *       when the database is otherwise idle.
 * </ul>
 * Prints every run, then the medians of the runs, and ends with the line scripts read:
 * {@code backfill-pacing: idle_p99_ms=X copy_p99_ms=Y replica_rows_per_s=Z} (Z: the copy rate
 * while live transactions flow).
 */
public final class BackfillBench {
  private static final Duration LONG = Duration.ofMinutes(10);
  /**
   * {@code -Dpg2lite.bench.split=true}: also read the topic, to tell for the slowest samples how
   * long the row took to be committed in Kafka (source side) of its total. Off by default: the
   * extra consumer decodes every record and costs CPU the pipeline shares.
   */
  private static final boolean SPLIT = Boolean.getBoolean("pg2lite.bench.split");

  /** One run's figures. */
  record Run(double idleP50, double idleP99, double copyP50, double copyP99, int copyTransactions,
      double replicaRowsPerSecond, double idleCopyRowsPerSecond, List<Double> idleWorst, List<Double> copyWorst) {}

  public static void main(String[] args) throws Exception {
    int rows = Integer.getInteger("pg2lite.bench.rows", 1_000_000);
    int runs = Integer.getInteger("pg2lite.bench.runs", 3);
    int liveRate = Integer.getInteger("pg2lite.bench.liveRate", 10);
    List<Run> results = new ArrayList<>();
    try (TestStack stack = TestStack.create(); SqliteFiles files = new SqliteFiles()) {
      for (int run = 1; run <= runs; run++) {
        Run r = run(stack, files, run, rows, liveRate);
        results.add(r);
        System.out.printf("run %d: live p50/p99 idle %.1f / %.1f ms, during the copy %.1f / %.1f ms (%d txs); "
            + "copy into the replica %,.0f rows/s with live load, %,.0f rows/s idle%n", run, r.idleP50, r.idleP99,
            r.copyP50, r.copyP99, r.copyTransactions, r.replicaRowsPerSecond, r.idleCopyRowsPerSecond);
        System.out.printf("run %d: slowest live ms idle %s, during the copy %s%n", run, r.idleWorst, r.copyWorst);
      }
    }
    System.out.printf("medians of %d runs: live p50/p99 idle %.1f / %.1f ms, during the copy %.1f / %.1f ms; copy %,.0f "
        + "rows/s with live load, %,.0f rows/s idle%n", runs, median(results, Run::idleP50),
        median(results, Run::idleP99), median(results, Run::copyP50), median(results, Run::copyP99),
        median(results, Run::replicaRowsPerSecond), median(results, Run::idleCopyRowsPerSecond));
    System.out.printf("backfill-pacing: idle_p99_ms=%.1f copy_p99_ms=%.1f replica_rows_per_s=%.0f%n",
        median(results, Run::idleP99), median(results, Run::copyP99), median(results, Run::replicaRowsPerSecond));
  }

  private static Run run(TestStack stack, SqliteFiles files, int run, int rows, int liveRate) throws Exception {
    TestDatabase db = stack.postgres().newDatabase("pacing_" + run);
    db.execute("CREATE TABLE live (id bigint PRIMARY KEY, v text)");
    for (String t : List.of("big", "big_idle")) {
      db.execute("CREATE TABLE " + t + " (id bigint PRIMARY KEY, name text, qty int, price numeric, at timestamptz)",
          "INSERT INTO " + t + " SELECT g, 'item ' || g, g % 100, (g % 1000) / 7.0, now() FROM generate_series(1, "
              + rows + ") g");
    }
    db.execute("VACUUM ANALYZE", "CREATE PUBLICATION pacing_" + run + "_pub FOR TABLE live");
    String topic = stack.kafka().uniqueTopicName("pacing");
    Path replica = files.newFile("pacing");
    String source = "pacing-source-" + run;
    String sink = "pacing-sink-" + run;
    Map<String, String> s = ConnectorConfigs.source(stack, source, db.name(), "pacing_" + run, topic);
    s.putAll(BenchSettings.withPrefix("pg2lite.source."));
    stack.connect().rest().putConnector(source, s);
    stack.connect().rest().awaitRunning(source, Duration.ofSeconds(90));
    stack.connect().rest().putConnector(sink, ConnectorConfigs.sink(stack, sink, topic, replica));
    stack.connect().rest().awaitRunning(sink, Duration.ofSeconds(90));
    awaitCompleted(replica, "live");

    String bootstrap = stack.kafka().bootstrapServers();
    LiveLoad idle = new LiveLoad(db, replica, liveRate, 1, bootstrap, topic);
    LockSupport.parkNanos(Duration.ofSeconds(2).toNanos());
    idle.discardSoFar(); // warm-up
    LockSupport.parkNanos(Duration.ofSeconds(6).toNanos());
    List<Double> idleMs = idle.stop();

    LiveLoad during = new LiveLoad(db, replica, liveRate, idle.nextId(), bootstrap, topic);
    long t0 = System.nanoTime();
    db.execute("ALTER PUBLICATION pacing_" + run + "_pub ADD TABLE big");
    awaitCompleted(replica, "big");
    double copySeconds = (System.nanoTime() - t0) / 1e9;
    List<Double> copyMs = during.stop();
    System.out.printf("run %d: slowest idle %s; during the copy (ALTER PUBLICATION at %.1f s) %s%n", run,
        idle.slowest(), (t0 - during.startedAt) / 1e9, during.slowest());

    long t1 = System.nanoTime();
    db.execute("ALTER PUBLICATION pacing_" + run + "_pub ADD TABLE big_idle");
    awaitCompleted(replica, "big_idle");
    double idleCopySeconds = (System.nanoTime() - t1) / 1e9;

    stack.connect().rest().delete(sink);
    stack.connect().rest().delete(source);
    Await.until("slot released", Duration.ofSeconds(60), () -> {
      try {
        return db.queryColumn("SELECT active::text FROM pg_replication_slots WHERE slot_name = 'pacing_" + run
            + "_slot'").stream().noneMatch("true"::equals);
      } catch (SQLException e) {
        throw new IllegalStateException(e);
      }
    });
    Collections.sort(idleMs);
    Collections.sort(copyMs);
    return new Run(Percentiles.of(idleMs, 50), Percentiles.of(idleMs, 99), Percentiles.of(copyMs, 50), Percentiles.of(copyMs, 99), copyMs.size(),
        rows / copySeconds, rows / idleCopySeconds, worst(idleMs), worst(copyMs));
  }

  /**
   * Single-row inserts into {@code live} at a fixed rate, whatever the latency (a writer thread on
   * a schedule), and a watcher thread that times each row from its commit to its visibility in
   * the replica. Rows are applied in commit order, so the replica's largest id tells which rows
   * are visible.
   */
  private static final class LiveLoad {
    private final AtomicBoolean stop = new AtomicBoolean();
    private final Map<Long, Long> committedAt = new ConcurrentHashMap<>();
    private final Map<Long, Long> commitTimes = new ConcurrentHashMap<>();
    private final List<Double> latencies = Collections.synchronizedList(new ArrayList<>());
    /** The slowest samples as "latency ms @ seconds since this load began". */
    private final java.util.TreeMap<Double, Double> slowest = new java.util.TreeMap<>();
    private final long startedAt = System.nanoTime();
    /** The watcher's slowest look at the replica: a measurement that waited on a lock would show here. */
    private volatile double slowestQueryMs;
    private final AtomicLong next;
    private final AtomicLong lastCommitted = new AtomicLong();
    private final Thread writer;
    private final Thread watcher;
    private volatile long discardBelow;

    /** When each live row was first seen committed in the change-log topic (ns), to split the latency. */
    private final Map<Long, Long> inTopicAt = new ConcurrentHashMap<>();
    /** When the worker's producer sent each live row (its record's CreateTime, ns): splits the source side. */
    private final Map<Long, Long> sentAt = new ConcurrentHashMap<>();
    private final Map<Double, Long> slowestIds = new ConcurrentHashMap<>();
    private final Thread topicWatcher;

    LiveLoad(TestDatabase db, Path replica, int perSecond, long firstId, String bootstrap, String topic) {
      next = new AtomicLong(firstId);
      lastCommitted.set(firstId - 1);
      writer = new Thread(() -> {
        long period = 1_000_000_000L / perSecond;
        long due = System.nanoTime();
        try (Connection c = db.connect(); Statement st = c.createStatement()) {
          while (!stop.get()) {
            long id = next.getAndIncrement();
            st.execute("INSERT INTO live VALUES (" + id + ", 'x')");
            committedAt.put(id, System.nanoTime());
            lastCommitted.set(id);
            due += period;
            LockSupport.parkNanos(Math.max(0, due - System.nanoTime()));
          }
        } catch (SQLException e) {
          throw new IllegalStateException(e);
        }
      }, "live-writer");
      watcher = new Thread(() -> {
        long seen = firstId - 1;
        try (Connection c = SqliteFiles.open(replica); Statement st = c.createStatement()) {
          while (!stop.get() || seen < lastCommitted.get()) {
            long max;
            long q0 = System.nanoTime();
            try (ResultSet rs = st.executeQuery("SELECT coalesce(max(id), 0) FROM live")) {
              rs.next();
              max = rs.getLong(1);
            }
            long now = System.nanoTime();
            slowestQueryMs = Math.max(slowestQueryMs, (now - q0) / 1e6);
            for (long id = seen + 1; id <= max; id++) {
              Long at = committedAt.remove(id);
              if (at != null) {
                commitTimes.put(id, at);
              }
              if (at != null && id >= discardBelow) {
                double ms = (now - at) / 1e6;
                latencies.add(ms);
                synchronized (slowest) {
                  slowestIds.put(ms, id);
                  slowest.put(ms, (at - startedAt) / 1e9);
                  if (slowest.size() > 3) {
                    slowest.pollFirstEntry();
                  }
                }
              }
            }
            seen = Math.max(seen, max);
            LockSupport.parkNanos(1_000_000);
          }
        } catch (SQLException e) {
          throw new IllegalStateException(e);
        }
      }, "live-watcher");
      topicWatcher = new Thread(() -> {
        java.util.Map<String, Object> props = java.util.Map.of("bootstrap.servers", bootstrap,
            "isolation.level", "read_committed", "enable.auto.commit", false);
        io.pg2lite.protocol.codec.ChangeLogCodec codec = new io.pg2lite.protocol.codec.ChangeLogCodec();
        org.apache.kafka.common.TopicPartition tp = new org.apache.kafka.common.TopicPartition(topic, 0);
        try (org.apache.kafka.clients.consumer.KafkaConsumer<byte[], byte[]> c =
            new org.apache.kafka.clients.consumer.KafkaConsumer<>(props,
                new org.apache.kafka.common.serialization.ByteArrayDeserializer(),
                new org.apache.kafka.common.serialization.ByteArrayDeserializer())) {
          c.assign(List.of(tp));
          c.seekToEnd(List.of(tp));
          c.position(tp);
          while (!stop.get()) {
            for (var r : c.poll(Duration.ofMillis(5))) {
              long now = System.nanoTime();
              if (codec.decode(r.value()).message() instanceof io.pg2lite.protocol.message.DataChange.Insert ins
                  && ins.relation().name().equals("live")
                  && ins.row().get("id") instanceof io.pg2lite.protocol.value.Value.Int id) {
                inTopicAt.putIfAbsent(id.value(), now);
                // CreateTime: the producer's send (the source sets no timestamp), on the nanoTime scale.
                sentAt.putIfAbsent(id.value(), now - (System.currentTimeMillis() - r.timestamp()) * 1_000_000L);
              }
            }
          }
        }
      }, "live-topic-watcher");
      topicWatcher.setDaemon(true);
      if (SPLIT) {
        topicWatcher.start();
      }
      writer.start();
      watcher.start();
    }

    void discardSoFar() {
      discardBelow = next.get();
    }

    long nextId() {
      return next.get();
    }

    String slowest() {
      synchronized (slowest) {
        return slowest.descendingMap().entrySet().stream()
            .map(e -> {
              Long id = slowestIds.get(e.getKey());
              Long topicAt = id == null ? null : inTopicAt.get(id);
              Long at = id == null ? null : commitTimes.get(id);
              Long sent = id == null ? null : sentAt.get(id);
              String split = topicAt == null || at == null || sent == null ? ""
                  : String.format(" (sent after %.0f ms, in the topic after %.0f ms)", (sent - at) / 1e6,
                      (topicAt - at) / 1e6);
              return String.format("%.0f ms @ %.1f s%s", e.getKey(), e.getValue(), split);
            }).toList()
            + String.format(" (slowest look at the replica %.0f ms)", slowestQueryMs);
      }
    }

    List<Double> stop() throws InterruptedException {
      stop.set(true);
      writer.join();
      watcher.join(Duration.ofMinutes(2).toMillis());
      return new ArrayList<>(latencies);
    }
  }

  private static boolean completed(Path replica, String table) {
    try (Connection c = SqliteFiles.open(replica); Statement s = c.createStatement();
        ResultSet rs = s.executeQuery("SELECT count(*), sum(backfill IS NOT NULL) FROM \"_pg2lite.columns\" WHERE table_name = '"
            + table + "'")) {
      return rs.next() && rs.getLong(1) > 0 && rs.getLong(2) == 0;
    } catch (SQLException e) {
      return false;
    }
  }

  private static void awaitCompleted(Path replica, String table) {
    Await.until(table + " complete in the replica", LONG, () -> completed(replica, table));
  }

  /** The five largest of sorted latencies, rounded to whole ms. */
  private static List<Double> worst(List<Double> sorted) {
    return sorted.subList(Math.max(0, sorted.size() - 5), sorted.size()).stream().map(v -> (double) Math.round(v))
        .toList();
  }


  private static double median(List<Run> runs, java.util.function.ToDoubleFunction<Run> f) {
    double[] v = runs.stream().mapToDouble(f).sorted().toArray();
    return v.length % 2 == 1 ? v[v.length / 2] : (v[v.length / 2 - 1] + v[v.length / 2]) / 2;
  }
}
