package io.pg2lite.sink.bench;

import io.pg2lite.testkit.TestStack;
import io.pg2lite.testkit.postgres.TestDatabase;
import io.pg2lite.testkit.sqlite.SqliteFiles;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.List;

/**
 * Issue 26's two throughput workloads as drains, round after round in one worker (its own JVM):
 * 100k inserts in transactions of 1,000 rows, then 100k single-row updates in transactions of
 * 1,000. Each is written while the source is paused and timed from {@code resume} until the
 * replica holds a marker committed after it ({@link DrainPipeline}), so the figure is the
 * pipeline's rate and CPU (worker and broker) rather than Postgres taking statements on the same
 * two cores, which bounded PipelineBench. Round 1 is the first 100k rows after the connectors were
 * created (cold); the "warm" is round 4, after three rounds. The replica is checked against
 * Postgres at the end: every row, and the updated column's sum.
 *
 * <pre>
 * java [-Dpg2lite.bench.rounds=6] [-Dpg2lite.bench.eos=true] [-Dpg2lite.bench.heap=1g] \
 *     -cp connector-sink/target/test-classes:connector-sink/target/classes:$(cat /tmp/cp.txt) \
 *     io.pg2lite.sink.bench.DrainBench
 * </pre>
 * Ends with a machine-readable line, {@code drain-bench: eos=... r1_insert_rows_s=... ...}.
 */
public final class DrainBench {
  private static final int ROWS = 100_000;
  private static final int TX_ROWS = 1_000;

  public static void main(String[] args) throws Exception {
    int rounds = Integer.getInteger("pg2lite.bench.rounds", 6);
    boolean exactlyOnce = Boolean.parseBoolean(System.getProperty("pg2lite.bench.eos", "true"));
    String heap = System.getProperty("pg2lite.bench.heap", "1g");
    Path work = Files.createTempDirectory("pg2lite-drain-bench");
    StringBuilder line = new StringBuilder("drain-bench: eos=" + exactlyOnce);
    try (TestStack stack = TestStack.create(); SqliteFiles files = new SqliteFiles()) {
      TestDatabase db = stack.postgres().newDatabase("drain");
      DrainPipeline.createItemTables(db);
      try (DrainPipeline p = DrainPipeline.start(stack, db, files, work, heap, exactlyOnce, "drain")) {
        System.out.printf("worker -Xmx%s, %s; %,d rows a workload in transactions of %,d; drained after a pause%n",
            heap, exactlyOnce ? "exactly-once" : "at-least-once", ROWS, TX_ROWS);
        System.out.printf("%6s %14s %14s %14s %14s%n", "round", "insert rows/s", "insert µs/row", "update rows/s",
            "update µs/row");
        int marker = 1;
        for (int round = 1; round <= rounds; round++) {
          long base = (long) (round - 1) * ROWS;
          long[] next = {base};
          double[] ins = p.drain(db, marker++, () -> DrainPipeline.insertItems(db, next, ROWS / TX_ROWS, TX_ROWS));
          double[] upd = p.drain(db, marker++, () -> update(db, base));
          System.out.printf("%6d %,14.0f %14.1f %,14.0f %14.1f%n", round, ins[0], ins[1], upd[0], upd[1]);
          line.append(String.format(" r%d_insert_rows_s=%.0f r%d_insert_us_row=%.1f r%d_update_rows_s=%.0f"
              + " r%d_update_us_row=%.1f", round, ins[0], round, ins[1], round, upd[0], round, upd[1]));
        }
        long rows = (long) rounds * ROWS;
        p.check(db, List.of("item"), rows);
        checkQty(db, p.replica);
      }
    }
    System.out.println(line);
  }

  /** One UPDATE statement a row, a thousand to a transaction, over the rows the round inserted. */
  private static long update(TestDatabase db, long base) throws SQLException {
    try (Connection c = db.connect(); Statement s = c.createStatement()) {
      c.setAutoCommit(false);
      for (long id = base + 1; id <= base + ROWS; id++) {
        s.addBatch("UPDATE item SET qty = qty + 1000 WHERE id = " + id);
        if (id % TX_ROWS == 0) {
          s.executeBatch();
          c.commit();
        }
      }
    }
    return ROWS;
  }

  /** The updates' effect, not only the row count: the replica's qty total equals Postgres's. */
  private static void checkQty(TestDatabase db, Path replica) throws Exception {
    long pg;
    long lite;
    try (Connection c = db.connect(); Statement s = c.createStatement();
        var rs = s.executeQuery("SELECT sum(qty) FROM item")) {
      rs.next();
      pg = rs.getLong(1);
    }
    try (Connection c = SqliteFiles.open(replica); Statement s = c.createStatement();
        var rs = s.executeQuery("SELECT sum(qty) FROM item")) {
      rs.next();
      lite = rs.getLong(1);
    }
    if (pg != lite) {
      throw new AssertionError("sum(qty): Postgres " + pg + ", replica " + lite);
    }
  }
}
