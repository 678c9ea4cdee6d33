package io.pg2lite.source.bench;

import com.sun.management.OperatingSystemMXBean;
import io.pg2lite.connect.failure.Healing;
import io.pg2lite.source.config.SourceConfig;
import io.pg2lite.source.postgres.PostgresConnections;
import io.pg2lite.source.debezium.DecoderSession;
import io.pg2lite.source.replication.HealingReplicationStream;
import io.pg2lite.source.replication.ReplicationEvent;
import io.pg2lite.source.replication.ReplicationStream;
import io.pg2lite.testkit.TestStack;
import io.pg2lite.testkit.postgres.PostgresServer;
import io.pg2lite.testkit.postgres.TestDatabase;
import java.lang.management.GarbageCollectorMXBean;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.sql.Connection;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Predicate;

/**
 * The decode path's cost per row: how fast, and at what CPU, the source's reader
 * ({@link HealingReplicationStream} over {@link DecoderSession}: Debezium's replication connection
 * and pgoutput decoder read on the polling thread, every value mapped to a {@link ReplicationEvent})
 * drains a backlog. Issue 13 measured it against Debezium's whole task (ADR 0015); issue 24 against
 * the same path with a Connect {@code Struct} built per row (docs/performance.md).
 *
 * <p>Each round creates a database with one table of common types and a publication, then a slot
 * before any row, then writes 100,000 rows in 200 transactions of 500 rows; the reader drains the
 * fully written backlog, so what is measured is the Java side, not the writer. The headline window
 * runs from the first row received to the 100,000th ("drain"); the time from opening the stream
 * ("total", start-up included) is printed too. CPU in the same window: the JVM process
 * ({@code getProcessCpuTime}: every JVM thread, GC and JIT included; the embedded Postgres is
 * another process and is not counted) and the reading thread ({@link ThreadMXBean}). The first
 * round is cold (classes loading, JIT); the summary line gives medians of the warm rounds.
 *
 * <pre>
 * mvn -B -o -q -pl connector-source -am test-compile -DskipTests
 * mvn -B -o -q -pl connector-source exec:java -Dexec.classpathScope=test \
 *     -Dexec.mainClass=io.pg2lite.source.bench.DecodeBench [-Ddecode.rounds=4]
 * </pre>
 */
public final class DecodeBench {
  private static final int TRANSACTIONS = 200;
  private static final int ROWS_PER_TRANSACTION = 500;
  private static final int ROWS = TRANSACTIONS * ROWS_PER_TRANSACTION;
  /** Rounds ({@code -Ddecode.rounds}, default 4): the first is cold, medians are over the others. */
  private static final int ROUNDS = Integer.getInteger("decode.rounds", 4);

  /** One path's figures for one round. */
  private record Run(String path, double totalSeconds, double drainSeconds, long processCpuNs, long decodeCpuNs,
      long gcMs, String threads) {
    double rowsPerSecond() {
      return ROWS / drainSeconds;
    }

    double processCpuUsPerRow() {
      return processCpuNs / 1e3 / ROWS;
    }

    double decodeCpuUsPerRow() {
      return decodeCpuNs / 1e3 / ROWS;
    }

    void print() {
      System.out.printf("  %-9s drain %6.2f s = %8.0f rows/s (total %6.2f s)  process cpu %6.1f us/row  "
          + "decode-thread cpu %6.1f us/row  gc %5d ms  [%s]%n", path, drainSeconds, rowsPerSecond(), totalSeconds,
          processCpuUsPerRow(), decodeCpuUsPerRow(), gcMs, threads);
    }
  }

  public static void main(String[] args) throws Exception {
    List<Run> warm = new ArrayList<>();
    try (TestStack stack = TestStack.create()) {
      PostgresServer pg = stack.postgres();
      for (int round = 1; round <= ROUNDS; round++) {
        try (TestDatabase db = pg.newDatabase("decode_bench")) {
          db.execute("CREATE TABLE item (id int8 PRIMARY KEY, name text, price numeric, qty int4, ts timestamptz,"
              + " d date, f float8, ok bool, tags jsonb, u uuid, dims int4[])",
              "CREATE PUBLICATION bench_pub FOR TABLE item");
          System.out.printf("round %d: slot at %s%n", round, db.createLogicalSlot("bench_slot"));
          write(db);
          Run run = drain(round == 1 ? "cold" : "warm", decoder(pg, db, "bench_slot"),
              t -> t == Thread.currentThread().getId());
          run.print();
          if (round > 1) {
            warm.add(run);
          }
        }
      }
    }
    System.out.printf("decode: warm medians over %d rounds: rows_per_s=%.0f read_thread_cpu_us_per_row=%.2f "
        + "process_cpu_us_per_row=%.2f%n", warm.size(), median(warm, Run::rowsPerSecond),
        median(warm, Run::decodeCpuUsPerRow), median(warm, Run::processCpuUsPerRow));
  }

  /** The source's reader, as {@code PostgresKafkaWiring} builds it, resuming at the slot's position. */
  private static ReplicationStream decoder(PostgresServer pg, TestDatabase db, String slot) {
    SourceConfig config = config(pg, db, slot);
    // No TLS settings: PostgresConnections writes no files, so there is nothing to close.
    return new HealingReplicationStream(slot, DecoderSession.opener(config, PostgresConnections.open(config)),
        DecoderSession.batchSize(config), 0,
        () -> null, () -> null, Healing.forRetries("bench", 1000, 1000, "none",
        org.slf4j.LoggerFactory.getLogger(DecodeBench.class)));
  }

  private static SourceConfig config(PostgresServer pg, TestDatabase db, String slot) {
    Map<String, String> props = new HashMap<>();
    props.put("database.hostname", pg.host());
    props.put("database.port", String.valueOf(pg.port()));
    props.put("database.dbname", db.name());
    props.put("database.user", pg.user());
    props.put("database.password", pg.password());
    props.put("slot.name", slot);
    props.put("publication.name", "bench_pub");
    props.put("topic", "unused");
    props.put("kafka.bootstrap.servers", "unused:9092");
    props.put("heartbeat.interval.ms", "0"); // no writes of its own
    return new SourceConfig(props);
  }

  /** Polls {@code stream} from the slot's confirmed position until 100,000 row changes arrived. */
  private static Run drain(String path, ReplicationStream stream, Predicate<Long> decodeThreads) throws Exception {
    Window w = new Window(decodeThreads);
    long rows = 0;
    try {
      stream.start();
      while (rows < ROWS) {
        for (ReplicationEvent e : stream.poll()) {
          if (e instanceof ReplicationEvent.RowChange) {
            if (rows++ == 0) {
              w.firstRow();
            }
          } else if (e instanceof ReplicationEvent.Interrupted i) {
            throw new IllegalStateException("stream interrupted: " + i.reason());
          }
        }
      }
      return w.end(path);
    } finally {
      stream.close();
    }
  }

  /** Wall clock and CPU from opening a stream (total) and from its first row (drain) to now. */
  private static final class Window {
    private static final ThreadMXBean THREADS = ManagementFactory.getThreadMXBean();
    private static final OperatingSystemMXBean OS =
        (OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean();
    private final Predicate<Long> decodeThread;
    private final long opened = System.nanoTime();
    private long first;
    private long processCpu;
    private long gcMs;
    private Map<Long, Long> threadCpu;

    Window(Predicate<Long> decodeThread) {
      this.decodeThread = decodeThread;
    }

    void firstRow() {
      first = System.nanoTime();
      processCpu = OS.getProcessCpuTime();
      gcMs = gcMillis();
      threadCpu = threadCpu();
    }

    Run end(String path) {
      long now = System.nanoTime();
      long cpu = OS.getProcessCpuTime() - processCpu;
      long decode = 0;
      List<String> names = new ArrayList<>();
      for (Map.Entry<Long, Long> t : threadCpu().entrySet()) {
        if (decodeThread.test(t.getKey())) {
          long d = t.getValue() - threadCpu.getOrDefault(t.getKey(), 0L);
          decode += d;
          java.lang.management.ThreadInfo info = THREADS.getThreadInfo(t.getKey());
          names.add((info == null ? "?" : info.getThreadName()) + String.format(" %.2f s", d / 1e9));
        }
      }
      return new Run(path, (now - opened) / 1e9, (now - first) / 1e9, cpu, decode, gcMillis() - gcMs,
          String.join(", ", names));
    }

    private static Map<Long, Long> threadCpu() {
      Map<Long, Long> out = new HashMap<>();
      for (long id : THREADS.getAllThreadIds()) {
        long ns = THREADS.getThreadCpuTime(id);
        if (ns >= 0) {
          out.put(id, ns);
        }
      }
      return out;
    }

    private static long gcMillis() {
      long ms = 0;
      for (GarbageCollectorMXBean gc : ManagementFactory.getGarbageCollectorMXBeans()) {
        ms += Math.max(0, gc.getCollectionTime());
      }
      return ms;
    }
  }

  /** 200 transactions of 500 rows, as {@code SourceBench} writes them, with more types per row. */
  private static void write(TestDatabase db) throws Exception {
    try (Connection c = db.connect(); Statement s = c.createStatement()) {
      c.setAutoCommit(false);
      for (int t = 0; t < TRANSACTIONS; t++) {
        long from = (long) t * ROWS_PER_TRANSACTION + 1;
        long to = from + ROWS_PER_TRANSACTION - 1;
        s.execute("INSERT INTO item SELECT g, 'item ' || g, (g % 1000) / 7.0, g % 100, now(), current_date - g % 999,"
            + " g / 3.0, g % 2 = 0, jsonb_build_object('g', g, 'tag', 'x' || g % 10), md5(g::text)::uuid,"
            + " ARRAY[g % 7, g % 11] FROM generate_series(" + from + ", " + to + ") g");
        c.commit();
      }
    }
  }

  private static double median(List<Run> runs, java.util.function.ToDoubleFunction<Run> f) {
    double[] v = runs.stream().mapToDouble(f).sorted().toArray();
    return v[v.length / 2];
  }
}
