package io.pg2lite.source.bench;

import io.pg2lite.protocol.codec.ChangeLogCodec;
import io.pg2lite.protocol.message.ChangeLogEntry;
import io.pg2lite.protocol.message.MessageKind;
import io.pg2lite.testkit.ConnectorConfigs;
import io.pg2lite.testkit.TestStack;
import io.pg2lite.testkit.connect.WorkerProcess;
import io.pg2lite.testkit.kafka.TopicReader;
import io.pg2lite.testkit.postgres.TestDatabase;
import io.pg2lite.testkit.support.Await;
import io.pg2lite.testkit.support.BenchSettings;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.util.Map;
import org.apache.kafka.clients.consumer.ConsumerRecord;

/**
 * Postgres → change-log topic throughput: {@code mvn -B -q -pl connector-source -am test-compile
 * exec:java -Dexec.classpathScope=test -Dexec.mainClass=io.pg2lite.source.bench.SourceBench}
 * (the command is in docs/performance.md).
 *
 * <p>For each workload the WAL is written while no connector runs, then the source drains the
 * backlog: what is timed is the source alone (decode, assemble, encode, produce with exactly-once),
 * from connector creation to the last commit visible to a read_committed consumer. The ceiling is
 * Postgres decoding the same slot with pgoutput ({@code pg_logical_slot_peek_binary_changes}),
 * which the source cannot beat. The worker runs in its own JVM with {@code -Xmx256m}
 * ({@code -Dpg2lite.bench.heap}); its peak heap comes from its GC log. {@code -Dpg2lite.bench.eos=false}
 * runs at-least-once; arguments {@code bulk}, {@code small}, {@code huge} pick workloads;
 * {@code -Dpg2lite.bench.rounds=N} runs them N times in the same worker (round 1 cold, then warm);
 * {@code -Dpg2lite.bench.threads=true} adds the worker's CPU per thread group. *worker µs/row*
 * is the worker process's CPU time (all threads: task, producer, Connect) from connector creation
 * to the last commit, per row.
 */
public final class SourceBench {
  private record Workload(String name, int transactions, int rowsPerTransaction) {}

  public static void main(String[] args) throws Exception {
    Path work = Files.createTempDirectory("pg2lite-source-bench");
    try (TestStack stack = TestStack.create()) {
      stack.postgres();
      stack.kafka();
      String heap = System.getProperty("pg2lite.bench.heap", "256m");
      boolean eos = Boolean.parseBoolean(System.getProperty("pg2lite.bench.eos", "true"));
      System.out.printf("worker heap %s, exactly-once %s%n", heap, eos);
      try (WorkerProcess worker = WorkerProcess.start(stack.kafka().bootstrapServers(), heap, work, eos)) {
        // rows/s: connector created -> last commit readable (read_committed), start-up included.
        // drain r/s: first record readable -> last commit; meaningless for one huge exactly-once
        // transaction, which becomes readable all at once.
        System.out.printf("%-26s %9s %9s %9s %7s %11s %9s %10s %13s%n", "workload", "rows", "rows/s", "drain r/s",
            "MB/s", "ceiling r/s", "% ceiling", "peak heap", "worker µs/row");
        java.util.List<String> only = java.util.List.of(args); // e.g. "bulk": one workload only
        // Round 1 meets a cold worker (its JIT compilers took more CPU than the task in a 100k-row
        // run); later rounds, each with a new database and connector, show the warm worker.
        int rounds = Integer.getInteger("pg2lite.bench.rounds", 1);
        for (int round = 1; round <= rounds; round++) {
          String tag = rounds == 1 ? "" : " #" + round;
          if (only.isEmpty() || only.contains("bulk")) {
            run(stack, worker, new Workload("500-row transactions" + tag, 200, 500), round);
          }
          if (only.isEmpty() || only.contains("small")) {
            run(stack, worker, new Workload("1-row transactions" + tag, 10_000, 1), round);
          }
          if (only.isEmpty() || only.contains("huge")) {
            run(stack, worker, new Workload("one 1M-row transaction" + tag, 1, 1_000_000), round);
          }
        }
      }
    }
  }

  private static void run(TestStack stack, WorkerProcess worker, Workload w, int round) throws Exception {
    String name = "bench_" + w.transactions + "x" + w.rowsPerTransaction + "_r" + round;
    try (TestDatabase db = stack.postgres().newDatabase(name)) {
      db.execute("CREATE TABLE item (id bigint PRIMARY KEY, name text, price numeric, qty int, updated timestamptz)",
          "CREATE PUBLICATION " + name + "_pub FOR TABLE item");
      String topic = stack.kafka().uniqueTopicName(name);
      Map<String, String> config = config(stack, db, name, topic);
      // First run creates slot, topic and the initial transaction; then the connector stops.
      worker.rest().putConnector(name, config);
      worker.rest().awaitRunning(name, Duration.ofSeconds(120));
      try (TopicReader reader = new TopicReader(stack.kafka().bootstrapServers(), topic)) {
        reader.read(3, Duration.ofSeconds(60));
        worker.rest().delete(name);
        Await.until("slot released", Duration.ofSeconds(60), () -> slotInactive(db, name + "_slot"));

        writeWorkload(db, w);
        long total = (long) w.transactions * w.rowsPerTransaction;
        double ceiling = total / timeDecoding(db, name);

        int gcFrom = worker.gcLogLines();
        CpuMark cpuFrom = CpuMark.take(worker);
        long created = System.nanoTime();
        worker.rest().putConnector(name, config);
        Drain d = drain(reader, worker, total);
        long end = d.end;
        double cpuMicrosPerRow = (worker.cpuNanos() - cpuFrom.workerNanos) / 1e3 / total;
        double seconds = (end - created) / 1e9;
        double drain = (end - d.firstRecord) / 1e9;
        System.out.printf("%-26s %9d %9.0f %9.0f %7.1f %11.0f %8.0f%% %7d MB %9.1f%n", w.name, total,
            total / seconds, total / drain, d.bytes / seconds / 1e6, ceiling, 100 * (total / seconds) / ceiling,
            worker.peakHeapMb(gcFrom), cpuMicrosPerRow);
        if (Boolean.getBoolean("pg2lite.bench.threads")) {
          cpuFrom.printSince(worker, total);
        }
        worker.rest().delete(name);
        Await.until("slot released", Duration.ofSeconds(60), () -> slotInactive(db, name + "_slot"));
      }
    }
  }

  /** When the first record became readable, when the drain ended, and the value bytes read. */
  private record Drain(long firstRecord, long end, long bytes) {}

  /** Reads the change log until the commit that follows the workload's {@code total}-th row. */
  private static Drain drain(TopicReader reader, WorkerProcess worker, long total) {
    ChangeLogCodec codec = new ChangeLogCodec();
    // Done at the commit that follows the workload's last row. Commits are not counted: the
    // first run's records (its initial and backfill transactions) may still be unread, and a
    // huge transaction arrives in several Kafka transactions (exactly.once.split.records).
    long rows = 0;
    long inTransaction = 0;
    boolean done = false;
    long bytes = 0;
    long t0 = 0;
    while (!done) {
      for (ConsumerRecord<byte[], byte[]> r : reader.read(100_000, Duration.ofMillis(200))) {
        if (t0 == 0) {
          t0 = System.nanoTime(); // the rate starts with the first record: start-up is reported apart
        }
        bytes += r.value().length;
        ChangeLogEntry e = codec.decode(r.value());
        if (e.message() instanceof io.pg2lite.protocol.message.DataChange.Insert) {
          inTransaction++;
        } else if (e.kind() == MessageKind.ROLLBACK) {
          inTransaction = 0; // a split transaction cut by a restart comes again whole
        } else if (e.kind() == MessageKind.COMMIT) {
          rows += inTransaction;
          inTransaction = 0;
          done = rows >= total;
        }
      }
      if (!worker.alive()) {
        throw new IllegalStateException("the worker process died (out of heap?)");
      }
    }
    return new Drain(t0, System.nanoTime(), bytes);
  }

  /** CPU used so far by the worker, this JVM and the machine, to report where a round's CPU went. */
  private record CpuMark(long workerNanos, long benchNanos, long[] machine, Map<Long, WorkerProcess.ThreadCpu> threads) {
    static CpuMark take(WorkerProcess worker) throws java.io.IOException {
      return new CpuMark(worker.cpuNanos(), BenchSettings.processCpuNanos(), machineTicks(), worker.threadCpuMillis());
    }

    /** How busy the machine was since this mark, this JVM's share, and the worker's by thread group. */
    void printSince(WorkerProcess worker, long rows) throws java.io.IOException {
      long[] now = machineTicks();
      double busy = now[0] == machine[0] ? 0 : 100.0 * (1 - (double) (now[1] - machine[1]) / (now[0] - machine[0]));
      System.out.printf("  machine busy %.0f%% of %d cores; bench JVM (broker, reader) %.1f µs/row; "
          + "the rest is Postgres%n", busy, Runtime.getRuntime().availableProcessors(),
          (BenchSettings.processCpuNanos() - benchNanos) / 1e3 / rows);
      WorkerProcess.cpuByThreadGroup(threads, worker.threadCpuMillis()).forEach((thread, used) -> {
        if (used * 1000.0 / rows >= 0.5) {
          System.out.printf("  %-18s %7d ms %7.1f µs/row%n", thread, used, used * 1000.0 / rows);
        }
      });
    }
  }

  /** All CPU ticks and idle ticks (idle + iowait) of the machine so far, from /proc/stat; zeros elsewhere. */
  private static long[] machineTicks() {
    try {
      String[] f = Files.readAllLines(Path.of("/proc/stat")).get(0).trim().split("\\s+");
      long all = 0;
      for (int i = 1; i < f.length; i++) {
        all += Long.parseLong(f[i]);
      }
      return new long[] {all, Long.parseLong(f[4]) + Long.parseLong(f[5])};
    } catch (java.io.IOException | RuntimeException e) {
      return new long[] {0, 0};
    }
  }

  private static Map<String, String> config(TestStack stack, TestDatabase db, String name, String topic) {
    Map<String, String> c = ConnectorConfigs.source(stack, name, db.name(), name, topic);
    if (!Boolean.parseBoolean(System.getProperty("pg2lite.bench.eos", "true"))) {
      c.remove("exactly.once.support");
      c.remove("transaction.boundary");
    }
    c.put("producer.override.linger.ms", "5");
    c.put("producer.override.batch.size", "262144");
    c.put("producer.override.transaction.timeout.ms", "600000");
    // Connector settings to try, as in BackfillBench: -Dpg2lite.source.exactly.once.commit.interval.ms=1000
    c.putAll(BenchSettings.withPrefix("pg2lite.source."));
    return c;
  }

  private static void writeWorkload(TestDatabase db, Workload w) throws Exception {
    try (Connection c = db.connect(); Statement s = c.createStatement()) {
      c.setAutoCommit(false);
      for (int t = 0; t < w.transactions; t++) {
        long from = (long) t * w.rowsPerTransaction + 1;
        long to = from + w.rowsPerTransaction - 1;
        s.execute("INSERT INTO item SELECT g, 'item ' || g, (g % 1000) / 7.0, g % 100, now() FROM generate_series("
            + from + ", " + to + ") g");
        c.commit();
      }
    }
  }

  /** Seconds Postgres takes to decode the slot's backlog with pgoutput (peek: the slot does not move). */
  private static double timeDecoding(TestDatabase db, String name) throws Exception {
    try (Connection c = db.connect(); Statement s = c.createStatement()) {
      long t0 = System.nanoTime();
      try (ResultSet rs = s.executeQuery("SELECT count(*) FROM pg_logical_slot_peek_binary_changes('" + name
          + "_slot', NULL, NULL, 'proto_version', '1', 'publication_names', '" + name + "_pub')")) {
        rs.next();
      }
      return (System.nanoTime() - t0) / 1e9;
    }
  }

  private static boolean slotInactive(TestDatabase db, String slot) {
    try {
      return db.queryColumn("SELECT active::text FROM pg_replication_slots WHERE slot_name = '" + slot + "'")
          .stream().noneMatch("true"::equals);
    } catch (java.sql.SQLException e) {
      throw new IllegalStateException(e);
    }
  }
}
