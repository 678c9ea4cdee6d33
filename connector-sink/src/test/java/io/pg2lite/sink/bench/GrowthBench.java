package io.pg2lite.sink.bench;

import io.pg2lite.testkit.TestStack;
import io.pg2lite.testkit.connect.WorkerProcess;
import io.pg2lite.testkit.postgres.TestDatabase;
import io.pg2lite.testkit.sqlite.SqliteFiles;
import io.pg2lite.testkit.support.SvgPlot;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * How the pipeline's cost grows with the size of what it carries (issue 26), with the worker in a
 * JVM of its own ({@link WorkerProcess}) and the plots written beside the printed figures:
 * <ul>
 *   <li>{@code tables}: a publication of 1, 100, 1,000 and 5,000 tables
 *       ({@code -Dpg2lite.bench.tableCounts=1,100,1000,5000}): the source's start-up (registered →
 *       RUNNING; → a live row visible in the replica), the worker's heap, and the rate of 100k
 *       rows written across all the tables (row {@code r} to table {@code r % N}), cold and warm.
 *   <li>{@code txsize}: transactions of 1, 10, 1k, 100k and 1M rows
 *       ({@code -Dpg2lite.bench.txSizes=...}) on one table: rows/s and the worker's heap.
 * </ul>
 * Each measured workload is written while the source is paused, then timed from {@code resume} to
 * the replica holding a marker row committed after it: the figure is the pipeline draining a
 * backlog (Postgres decoding it, the source, Kafka, the sink), not how fast one client can write
 * into Postgres on the same two cores, which bounded PipelineBench's rates. CPU per row is the
 * worker's plus this JVM's (the broker's) over the drain; heap is read from the worker's GC log
 * (peak: the most the heap held before a collection, which the heap's size and the allocation rate
 * set; live: the most it still held after one, which is what the workload retains).
 *
 * <pre>
 * mvn -B -o -q -pl connector-sink -am package -DskipTests dependency:build-classpath \
 *     -Dmdep.outputFile=/tmp/cp.txt -Dmdep.includeScope=test
 * java [-Dpg2lite.bench.heap=1g] [-Dpg2lite.bench.eos=true] [-Dpg2lite.bench.plotDir=docs/performance] \
 *     -cp connector-sink/target/test-classes:connector-sink/target/classes:$(cat /tmp/cp.txt) \
 *     io.pg2lite.sink.bench.GrowthBench [tables] [txsize]
 * </pre>
 * Ends each mode with a machine-readable line, {@code growth-bench: mode=... key=value ...}.
 */
public final class GrowthBench {
  private static final String HEAP = System.getProperty("pg2lite.bench.heap", "1g");
  private static final boolean EXACTLY_ONCE = Boolean.parseBoolean(System.getProperty("pg2lite.bench.eos", "true"));
  private static final Path PLOTS = Path.of(System.getProperty("pg2lite.bench.plotDir", "docs/performance"));
  private static final int TABLE_ROWS = Integer.getInteger("pg2lite.bench.tableRows", 100_000);

  public static void main(String[] args) throws Exception {
    List<String> modes = args.length == 0 ? List.of("tables", "txsize") : List.of(args);
    Path work = Files.createTempDirectory("pg2lite-growth-bench");
    try (TestStack stack = TestStack.create(); SqliteFiles files = new SqliteFiles()) {
      if (modes.contains("tables")) {
        publicationSize(stack, files, work, ints("pg2lite.bench.tableCounts", "1,100,1000,5000"));
      }
      if (modes.contains("txsize")) {
        transactionSize(stack, files, work, ints("pg2lite.bench.txSizes", "1,10,1000,100000,1000000"));
      }
    }
  }

  private static void publicationSize(TestStack stack, SqliteFiles files, Path work, int[] counts) throws Exception {
    System.out.printf("== Publication size: a fresh worker (-Xmx%s) per count; %,d rows across the tables, "
        + "100 txs of 1,000 rows, drained after a pause, twice%n", HEAP, TABLE_ROWS);
    System.out.printf("%7s %10s %11s %9s %11s %11s %12s %12s %12s %12s %10s%n", "tables", "RUNNING s",
        "live row s", "copied s", "heap MB", "live MB", "cold rows/s", "cold µs/row", "warm rows/s", "warm µs/row", "heap MB");
    SvgPlot startup = new SvgPlot("Source start-up against publication size", "tables in the publication",
        "seconds from registering the source", true);
    SvgPlot rate = new SvgPlot("Drain rate against publication size", "tables in the publication", "rows/s", true);
    SvgPlot heap = new SvgPlot("Worker heap against publication size", "tables in the publication", "MB", true);
    StringBuilder line = new StringBuilder("growth-bench: mode=tables");
    for (int n : counts) {
      TestDatabase db = stack.postgres().newDatabase("growth_tables_" + n);
      db.execute("DO $$ BEGIN FOR i IN 0.." + (n - 1) + " LOOP EXECUTE format('CREATE TABLE t_%s "
          + "(id bigint PRIMARY KEY, name text, qty int)', i); IF i % 200 = 199 THEN COMMIT; END IF; END LOOP; END $$",
          "CREATE TABLE marker (id int PRIMARY KEY)", "CREATE PUBLICATION growth_pub FOR ALL TABLES");
      try (DrainPipeline p = DrainPipeline.start(stack, db, files, work, HEAP, EXACTLY_ONCE, "tables-" + n)) {
        double running = p.sourceRunningSeconds;
        double live = (p.firstMarkerNanos - p.registeredNanos) / 1e9;
        double copied = p.awaitCopied(n + 1);
        int afterStart = p.worker.gcLogLines();
        long startHeap = p.worker.peakHeapMb(0);
        long startLive = p.worker.peakLiveHeapMb(0);
        double[] cold = p.drain(db, 1, () -> spreadRows(db, n, 0));
        double[] warm = p.drain(db, 2, () -> spreadRows(db, n, TABLE_ROWS));
        long runHeap = p.worker.peakHeapMb(afterStart);
        System.out.printf("%,7d %10.2f %11.2f %9.2f %11d %11d %,12.0f %12.1f %,12.0f %12.1f %10d%n", n, running,
            live, copied, startHeap, startLive, cold[0], cold[1], warm[0], warm[1], runHeap);
        startup.point("source RUNNING", n, running).point("a live row in the replica", n, live)
            .point("every table in the replica", n, copied);
        rate.point("cold (first 100k rows)", n, cold[0]).point("warm (next 100k)", n, warm[0]);
        heap.point("peak, start-up", n, startHeap).point("live, start-up", n, startLive)
            .point("peak, 200k rows", n, runHeap);
        line.append(String.format(" t%d_running_s=%.2f t%d_live_s=%.2f t%d_copied_s=%.2f t%d_cold=%.0f t%d_warm=%.0f t%d_heap=%d", n,
            running, n, live, n, copied, n, cold[0], n, warm[0], n, Math.max(startHeap, runHeap)));
        p.check(db, tables(n), 2L * TABLE_ROWS);
      }
      db.close();
    }
    System.out.printf("plots: %s %s %s%n", startup.write(PLOTS.resolve("publication-startup.svg")),
        rate.write(PLOTS.resolve("publication-rate.svg")), heap.write(PLOTS.resolve("publication-heap.svg")));
    System.out.println(line);
  }

  private static void transactionSize(TestStack stack, SqliteFiles files, Path work, int[] sizes) throws Exception {
    System.out.printf("== Transaction size: one worker (-Xmx%s), each workload drained after a pause; "
        + "a 100k-row warm-up round first%n", HEAP);
    TestDatabase db = stack.postgres().newDatabase("growth_txsize");
    DrainPipeline.createItemTables(db);
    SvgPlot rate = new SvgPlot("Drain rate against transaction size", "rows per transaction", "rows/s", true);
    SvgPlot heap = new SvgPlot("Worker heap against transaction size", "rows per transaction", "MB", true);
    StringBuilder line = new StringBuilder("growth-bench: mode=txsize");
    try (DrainPipeline p = DrainPipeline.start(stack, db, files, work, HEAP, EXACTLY_ONCE, "txsize")) {
      long[] next = {0};
      double[] warmUp = p.drain(db, 1, () -> DrainPipeline.insertItems(db, next, 100, 1000));
      System.out.printf("warm-up: 100 txs of 1,000 rows %,.0f rows/s, %.1f µs/row%n", warmUp[0], warmUp[1]);
      System.out.printf("%10s %8s %10s %12s %12s %10s %10s%n", "rows/tx", "txs", "rows", "rows/s", "CPU µs/row",
          "peak MB", "live MB");
      int marker = 2;
      for (int size : sizes) {
        int txs = Math.max(1, Math.min(5_000, 100_000 / size));
        if (size >= 100_000) {
          txs = size >= 1_000_000 ? 1 : 2;
        }
        int count = txs;
        int fromLine = p.worker.gcLogLines();
        double[] r = p.drain(db, marker++, () -> DrainPipeline.insertItems(db, next, count, size));
        long peak = p.worker.peakHeapMb(fromLine);
        long live = p.worker.peakLiveHeapMb(fromLine);
        System.out.printf("%,10d %,8d %,10d %,12.0f %12.1f %10d %10d%n", size, txs, (long) txs * size, r[0], r[1], peak,
            live);
        rate.point("rows/s", size, r[0]);
        heap.point("peak (before a collection)", size, peak).point("live (after a collection)", size, live);
        line.append(String.format(" tx%d_rows_s=%.0f tx%d_us_row=%.1f tx%d_peak=%d tx%d_live=%d", size, r[0], size,
            r[1], size, peak, size, live));
      }
      p.check(db, List.of("item"), next[0]);
    }
    System.out.printf("plots: %s %s%n", rate.write(PLOTS.resolve("txsize-rate.svg")),
        heap.write(PLOTS.resolve("txsize-heap.svg")));
    System.out.println(line);
  }

  /** 100 transactions of 1,000 rows, row {@code r} into table {@code r % n}: each table its own statement. */
  private static long spreadRows(TestDatabase db, int n, long base) throws SQLException {
    try (Connection c = db.connect(); Statement s = c.createStatement()) {
      c.setAutoCommit(false);
      for (long a = base; a < base + TABLE_ROWS; a += 1000) {
        long b = a + 999;
        for (int k = 0; k < Math.min(n, 1000); k++) {
          int table = (int) ((a + k) % n);
          s.addBatch("INSERT INTO t_" + table + " SELECT g, 'row ' || g, (g % 100)::int FROM generate_series("
              + (a + k) + ", " + b + ", " + n + ") g");
        }
        s.executeBatch();
        c.commit();
      }
    }
    return TABLE_ROWS;
  }

  private static List<String> tables(int n) {
    List<String> out = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      out.add("t_" + i);
    }
    return out;
  }

  private static int[] ints(String property, String fallback) {
    return Arrays.stream(System.getProperty(property, fallback).split(",")).mapToInt(s -> Integer.parseInt(s.trim()))
        .toArray();
  }
}
