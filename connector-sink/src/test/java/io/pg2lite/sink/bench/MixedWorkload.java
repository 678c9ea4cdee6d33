package io.pg2lite.sink.bench;

import io.pg2lite.testkit.fuzz.Action;
import io.pg2lite.testkit.fuzz.FuzzFeature;
import io.pg2lite.testkit.fuzz.Workload;
import io.pg2lite.testkit.fuzz.WorkloadGenerator;
import io.pg2lite.testkit.fuzz.WorkloadRunner;
import io.pg2lite.testkit.sqlite.SqliteFiles;
import io.pg2lite.testkit.support.QueryRows;
import java.nio.file.Files;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.Iterator;
import java.util.List;
import java.util.Locale;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;

/**
 * The soak's mixed DML and DDL beside the ledger, on a thread of its own: rounds of the
 * randomized differential test's workload ({@link WorkloadGenerator#generateRound}: DML with
 * edge values, rollbacks, two sessions, tables created, dropped and renamed, columns added,
 * renamed, dropped and retyped, indexes, key changes, publication changes), one unit (a
 * transaction, or two interleaved) at a time at a steady pace, and every few minutes a backfill:
 * <ul>
 *   <li>a table of {@code backfillRows} rows created and added to the publication (a table
 *       backfill), its rows updated now and then while it is copied;</li>
 *   <li>a column added to the newest such table with a volatile default, {@code gen_random_uuid()}
 *       (a column backfill: Postgres' WAL carries no values for it).</li>
 * </ul>
 * Each round's setup is itself a small table backfill (its tables added to the publication).
 * What it keeps is bounded: at the start of a round the tables of the round before the previous
 * one are dropped, and of the backfill tables the two newest are kept.
 *
 * <p>Statements that fail in Postgres are counted, not thrown (the generator aims at none); the
 * soak prints them. Stops between units, so no transaction is left open.
 */
final class MixedWorkload implements AutoCloseable {
  /** What the mixed workload never generates: restarts (a REST call), slot loss, the test-only features, MB values. */
  static final String DISABLED = "RESTARTS,SLOT_LOSS,SNAPSHOT_RESTORES,FOLLOWERS,LARGE_VALUES";
  private static final String BACKFILL_TABLE = "soak_bf_";
  private static final Set<String> OWN_TABLES = Set.of("acct", "probe", WorkloadGenerator.MARKER);

  private final SoakPipeline p;
  private final long seed;
  private final int transactions;
  private final Set<FuzzFeature> features;
  private final long unitNanos;
  private final long backfillEveryNanos;
  private final int backfillRows;
  private final Random random;
  private final AtomicBoolean stop = new AtomicBoolean();
  private final AtomicInteger rounds = new AtomicInteger();
  private final AtomicInteger units = new AtomicInteger();
  private final List<String> backfillTables = new ArrayList<>();
  private final List<PendingBackfill> pending = new ArrayList<>();
  private final Thread thread;
  private volatile long backfillsFrom = Long.MAX_VALUE;
  private volatile Throwable error;
  private volatile List<String> failures = List.of();
  private Workload round;
  private Set<String> keptFromBefore = Set.of();
  private volatile int backfills;
  private volatile long soakStart;

  private record PendingBackfill(String label, String table, String column, long startNanos) {}

  /**
   * @param round0 round 0 of the workload, whose setup ran before the pipeline started
   * @param perSecond units (transactions) per second
   * @param backfillMinutes minutes between backfills, from {@link #startBackfills} on
   */
  MixedWorkload(SoakPipeline p, Workload round0, int transactions, double perSecond, double backfillMinutes,
      int backfillRows) {
    this.p = p;
    this.round = round0;
    this.seed = round0.seed();
    this.features = round0.features();
    this.transactions = transactions;
    this.unitNanos = (long) (1e9 / perSecond);
    this.backfillEveryNanos = (long) (backfillMinutes * 60e9);
    this.backfillRows = backfillRows;
    this.random = new Random(seed);
    this.thread = new Thread(this::run, "soak-mixed-workload");
    thread.setDaemon(true);
  }

  MixedWorkload start() {
    thread.start();
    return this;
  }

  /** Backfills from now on, the first one {@code backfillMinutes} after this call. */
  void startBackfills(long soakStartNanos) {
    soakStart = soakStartNanos;
    backfillsFrom = System.nanoTime() + backfillEveryNanos;
  }

  private void run() {
    try (WorkloadRunner runner = new WorkloadRunner(p.db.jdbcUrl(), p.postgres.user(), p.postgres.password(), k -> {
      throw new IllegalStateException("the soak's workload restarts nothing: " + k);
    })) {
      long next = System.nanoTime();
      Iterator<List<Action>> it = round.units().iterator();
      while (!stop.get()) {
        if (!it.hasNext()) {
          it = nextRound(runner).iterator();
          continue;
        }
        runner.run(it.next());
        units.incrementAndGet();
        if (System.nanoTime() - backfillsFrom >= 0) {
          backfill(runner);
          backfillsFrom += backfillEveryNanos;
        }
        touchNewestBackfillTable(runner);
        checkBackfills();
        failures = runner.failures();
        next += unitNanos;
        next = Math.max(next, System.nanoTime() - 1_000_000_000L);
        LockSupport.parkNanos(next - System.nanoTime());
      }
      failures = runner.failures();
    } catch (Throwable e) {
      error = e;
      System.out.println("soak: the mixed workload stopped: " + e);
    }
  }

  /**
   * The next round: first the tables no longer needed are dropped (those of the round before the
   * previous one), then its setup, then its transactions.
   */
  private List<List<Action>> nextRound(WorkloadRunner runner) throws Exception {
    Set<String> now = fuzzTables();
    List<Action> drops = new ArrayList<>();
    for (String t : now) {
      if (keptFromBefore.contains(t)) {
        drops.add(new Action.Sql(0, "DROP TABLE IF EXISTS " + ident(t)));
      }
    }
    runner.run(drops);
    now.removeAll(keptFromBefore);
    keptFromBefore = now; // the previous round's tables: dropped at the start of the round after this one
    round = WorkloadGenerator.generateRound(seed, rounds.incrementAndGet(), transactions, features);
    System.out.printf(Locale.ROOT, "mixed workload %s: round %d (%d tables dropped, %d statements of setup)%n", when(),
        rounds.get(), drops.size(), round.setup().size());
    List<List<Action>> out = new ArrayList<>();
    out.add(round.setup());
    out.addAll(round.units());
    return out;
  }

  /** Tables of the fuzz rounds in Postgres now (not the ledger's, the probe's, the marker or backfill tables). */
  private Set<String> fuzzTables() throws SQLException {
    Set<String> out = new HashSet<>(p.db.queryColumn("SELECT tablename FROM pg_tables WHERE schemaname = 'public'"));
    out.removeAll(OWN_TABLES);
    out.removeIf(t -> t.startsWith(BACKFILL_TABLE));
    return out;
  }

  private void backfill(WorkloadRunner runner) throws Exception {
    int k = ++backfills;
    List<Action> sql = new ArrayList<>();
    if (k % 2 == 1 || backfillTables.isEmpty()) {
      String table = BACKFILL_TABLE + k;
      sql.add(new Action.Sql(0, "CREATE TABLE " + table + " (id bigint PRIMARY KEY, v text NOT NULL, n int NOT NULL)"));
      sql.add(new Action.Sql(0, "INSERT INTO " + table + " SELECT g, md5(g::text), 0 FROM generate_series(1, "
          + backfillRows + ") g"));
      sql.add(new Action.Sql(0, "ALTER PUBLICATION " + SoakPipeline.PUBLICATION + " ADD TABLE " + table));
      backfillTables.add(table);
      while (backfillTables.size() > 2) {
        sql.add(new Action.Sql(0, "DROP TABLE " + backfillTables.remove(0)));
      }
      pending.add(new PendingBackfill(String.format(Locale.ROOT, "table %s (%,d rows)", table, backfillRows), table,
          null, System.nanoTime()));
    } else {
      String table = backfillTables.get(backfillTables.size() - 1);
      String column = "c_" + k;
      sql.add(new Action.Sql(0, "ALTER TABLE " + table + " ADD COLUMN " + column + " uuid DEFAULT gen_random_uuid()"));
      pending.add(new PendingBackfill("column " + table + "." + column + " DEFAULT gen_random_uuid()", table, column,
          System.nanoTime()));
    }
    runner.run(sql);
    System.out.printf(Locale.ROOT, "backfill %s: %s%n", when(), pending.get(pending.size() - 1).label());
  }

  /** A live change to the newest backfill table while (and after) it is copied. */
  private void touchNewestBackfillTable(WorkloadRunner runner) throws Exception {
    if (!backfillTables.isEmpty()) {
      runner.run(List.of(new Action.Sql(0, "UPDATE " + backfillTables.get(backfillTables.size() - 1)
          + " SET n = n + 1, v = 'u" + units.get() + "' WHERE id = " + (1 + random.nextInt(backfillRows)))));
    }
  }

  /** Prints each backfill once the replica has it whole (the table's or the column's values all copied). */
  private void checkBackfills() {
    if (pending.isEmpty() || !Files.exists(p.replica)) {
      return;
    }
    try (Connection c = SqliteFiles.open(p.replica)) {
      for (Iterator<PendingBackfill> it = pending.iterator(); it.hasNext(); ) {
        PendingBackfill b = it.next();
        String where = " FROM \"_pg2lite.columns\" WHERE table_name = '" + b.table() + "'"
            + (b.column() == null ? "" : " AND column_name = '" + b.column() + "'");
        List<List<String>> r = QueryRows.of(c, "SELECT count(*), coalesce(sum(backfill IS NOT NULL), 0)" + where);
        if (!r.get(0).get(0).equals("0") && r.get(0).get(1).equals("0")) {
          System.out.printf(Locale.ROOT, "backfill %s: %s in the replica after %.1f s%n", when(), b.label(),
              (System.nanoTime() - b.startNanos()) / 1e9);
          it.remove();
        }
      }
    } catch (SQLException e) {
      // the replica busy or its table not there yet: the next unit looks again
    }
  }

  /** "at m:ss" of the soak, or "during the calibration" before it. */
  private String when() {
    return soakStart == 0 ? "during the calibration" : "at " + SoakFaults.clock(System.nanoTime() - soakStart);
  }

  private static String ident(String name) {
    return '"' + name.replace("\"", "\"\"") + '"';
  }

  int rounds() {
    return rounds.get();
  }

  int units() {
    return units.get();
  }

  int backfills() {
    return backfills;
  }

  /** Statements that failed in Postgres so far. */
  List<String> failures() {
    return failures;
  }

  /** Stops after the unit under way and joins; fails if the workload died. */
  @Override
  public void close() throws InterruptedException {
    stop.set(true);
    thread.join(120_000);
    if (thread.isAlive()) {
      throw new IllegalStateException("the mixed workload did not stop within 2 minutes");
    }
    if (error != null) {
      throw new IllegalStateException("the mixed workload died", error);
    }
  }
}
