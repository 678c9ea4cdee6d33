package io.pg2lite.source.bench;

import com.sun.management.OperatingSystemMXBean;
import io.pg2lite.source.config.SourceConfig;
import io.pg2lite.source.debezium.DebeziumReplicationStream;
import io.pg2lite.source.debezium.DecoderReplicationStream;
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
import org.apache.kafka.common.metrics.PluginMetrics;
import org.apache.kafka.connect.source.SourceTaskContext;
import org.apache.kafka.connect.storage.OffsetStorageReader;

/**
 * Spike (issue 13 section 1): is Debezium's lower layer, without its envelope, at least twice as
 * fast on the decode thread as the path pg2lite uses today?
 *
 * <p>Each round creates a database with one table and a publication, then two pgoutput slots
 * before any row is written, then writes 100,000 rows in 200 transactions of 500 rows; both slots
 * therefore hold the identical backlog. Two paths drain one slot each:
 * <ul>
 *   <li><b>A, envelope</b>: pg2lite's {@link DebeziumReplicationStream} (Debezium's whole Postgres
 *       task: streaming thread, offsets, source info, Connect {@code Struct} envelopes, the
 *       change-event queue, then our mapping to {@link ReplicationEvent}s), polled until 100,000
 *       {@link ReplicationEvent.RowChange}s arrived.</li>
 *   <li><b>B, lower layer</b>: pg2lite's {@link DecoderReplicationStream} (ADR 0015): Debezium's
 *       replication connection and {@code PgOutputMessageDecoder}, read on the polling thread,
 *       every value converted by the table's Debezium converters and mapped to the same
 *       {@link ReplicationEvent}s, until 100,000 {@link ReplicationEvent.RowChange}s. (The spike
 *       of ADR 0015 ran a bare decode loop here, resolving values to Java objects only; B is now
 *       the reader the source uses.)</li>
 * </ul>
 * Both paths see a fully written backlog, so what is measured is the Java side draining it, not
 * the writer. The headline window runs from the first row received to the 100,000th ("drain");
 * the time from opening the stream ("total", start-up included) is printed too. CPU in the same
 * window: the JVM process ({@code getProcessCpuTime}: every JVM thread, GC and JIT included; the
 * embedded Postgres is another process and is not counted) and the decode threads
 * ({@link ThreadMXBean}: A = the polling thread plus Debezium's change-event-source-coordinator
 * thread; B = the reading thread). Rounds alternate which path goes first; the summary line gives
 * medians of three rounds.
 *
 * <pre>
 * mvn -B -o -q -pl connector-source -am test-compile -DskipTests
 * mvn -B -o -q -pl connector-source exec:java -Dexec.classpathScope=test \
 *     -Dexec.mainClass=io.pg2lite.source.bench.DecodeSpikeBench
 * </pre>
 */
public final class DecodeSpikeBench {
  private static final int TRANSACTIONS = 200;
  private static final int ROWS_PER_TRANSACTION = 500;
  private static final int ROWS = TRANSACTIONS * ROWS_PER_TRANSACTION;
  /** Rounds of A and B ({@code -Dspike.rounds}, default 3); medians are over all rounds. */
  private static final int ROUNDS = Integer.getInteger("spike.rounds", 3);

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
    List<Run> envelope = new ArrayList<>();
    List<Run> lower = new ArrayList<>();
    try (TestStack stack = TestStack.create()) {
      PostgresServer pg = stack.postgres();
      for (int round = 1; round <= ROUNDS; round++) {
        try (TestDatabase db = pg.newDatabase("decode_spike")) {
          db.execute("CREATE TABLE item (id int8 PRIMARY KEY, name text, price numeric, qty int4, ts timestamptz)",
              "CREATE PUBLICATION spike_pub FOR TABLE item");
          // Both slots before any row: they decode the same 200 transactions.
          System.out.printf("round %d: slot_a at %s, slot_b at %s%n", round, db.createLogicalSlot("slot_a"),
              db.createLogicalSlot("slot_b"));
          write(db);
          boolean envelopeFirst = round % 2 == 1;
          Run first = envelopeFirst ? envelope(pg, db, "slot_a") : lower(pg, db, "slot_b");
          Run second = envelopeFirst ? lower(pg, db, "slot_b") : envelope(pg, db, "slot_a");
          first.print();
          second.print();
          (envelopeFirst ? envelope : lower).add(first);
          (envelopeFirst ? lower : envelope).add(second);
        }
      }
    }
    double a = median(envelope, Run::rowsPerSecond);
    double b = median(lower, Run::rowsPerSecond);
    System.out.printf("decode-spike (process cpu medians: envelope %.1f us/row, lower %.1f us/row)%n",
        median(envelope, Run::processCpuUsPerRow), median(lower, Run::processCpuUsPerRow));
    System.out.printf("decode-spike: envelope_rows_per_s=%.0f lower_rows_per_s=%.0f ratio=%.2f "
        + "envelope_cpu_us_per_row=%.1f lower_cpu_us_per_row=%.1f%n", a, b, b / a,
        median(envelope, Run::decodeCpuUsPerRow), median(lower, Run::decodeCpuUsPerRow));
  }

  /** Path A: Debezium's whole task inside {@link DebeziumReplicationStream}, polled like the task polls it. */
  private static Run envelope(PostgresServer pg, TestDatabase db, String slot) throws Exception {
    return drain("envelope", new DebeziumReplicationStream(config(pg, db, slot), new NoKafkaContext(), () -> null,
        () -> null), t -> t == Thread.currentThread().getId() || isCoordinator(t));
  }

  private static SourceConfig config(PostgresServer pg, TestDatabase db, String slot) {
    Map<String, String> props = new HashMap<>();
    props.put("database.hostname", pg.host());
    props.put("database.port", String.valueOf(pg.port()));
    props.put("database.dbname", db.name());
    props.put("database.user", pg.user());
    props.put("database.password", pg.password());
    props.put("slot.name", slot);
    props.put("publication.name", "spike_pub");
    props.put("topic", "unused");
    props.put("kafka.bootstrap.servers", "unused:9092");
    props.put("heartbeat.interval.ms", "0"); // a heartbeat would write to the WAL the other slot decodes
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

  /**
   * Path B: pg2lite's {@link DecoderReplicationStream} (ADR 0015): Debezium's replication
   * connection and pgoutput decoder on this thread, values converted by the table's Debezium
   * converters and mapped to {@link ReplicationEvent}s, polled like the task polls it.
   */
  private static Run lower(PostgresServer pg, TestDatabase db, String slot) throws Exception {
    return drain("lower", new DecoderReplicationStream(config(pg, db, slot), () -> null, () -> null),
        t -> t == Thread.currentThread().getId());
  }

  private static boolean isCoordinator(long threadId) {
    java.lang.management.ThreadInfo info = ManagementFactory.getThreadMXBean().getThreadInfo(threadId);
    return info != null && info.getThreadName().contains("change-event-source-coordinator");
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

  /** The same workload as {@code SourceBench}'s 500-row transactions. */
  private static void write(TestDatabase db) throws Exception {
    try (Connection c = db.connect(); Statement s = c.createStatement()) {
      c.setAutoCommit(false);
      for (int t = 0; t < TRANSACTIONS; t++) {
        long from = (long) t * ROWS_PER_TRANSACTION + 1;
        long to = from + ROWS_PER_TRANSACTION - 1;
        s.execute("INSERT INTO item SELECT g, 'item ' || g, (g % 1000) / 7.0, g % 100, now() FROM generate_series("
            + from + ", " + to + ") g");
        c.commit();
      }
    }
  }

  private static double median(List<Run> runs, java.util.function.ToDoubleFunction<Run> f) {
    double[] v = runs.stream().mapToDouble(f).sorted().toArray();
    return v[v.length / 2];
  }

  /** Debezium's task needs a context; no Kafka here, and pg2lite's offsets are given directly. */
  private static final class NoKafkaContext implements SourceTaskContext {
    @Override
    public Map<String, String> configs() {
      return Map.of();
    }

    @Override
    public OffsetStorageReader offsetStorageReader() {
      return null;
    }

    @Override
    public PluginMetrics pluginMetrics() {
      return null;
    }
  }
}
