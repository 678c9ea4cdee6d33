package io.pg2lite.sink.bench;

import io.pg2lite.testkit.fuzz.ReplicaComparator;
import io.pg2lite.testkit.fuzz.WorkloadGenerator;
import io.pg2lite.testkit.fuzz.WorkloadRunner;
import io.pg2lite.testkit.sqlite.SqliteFiles;
import io.pg2lite.testkit.support.Await;
import io.pg2lite.testkit.support.QueryRows;
import io.pg2lite.testkit.workload.Ledger;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import java.util.List;
import java.util.Locale;

/**
 * The soak's end, once every writer has stopped: the replica must come to equal Postgres. A
 * final marker transaction is committed (the workload's marker row); once the replica shows it,
 * has no column still being backfilled and no table still being copied, it has applied everything
 * committed before. Then the ledger audit counts what was lost and what was applied twice, and
 * {@link ReplicaComparator} compares every published table cell by cell, the ledger's included.
 */
final class SoakCheck {
  private static final Duration CONVERGE = Duration.ofMinutes(10);

  private final SoakPipeline p;
  private final Ledger ledger;

  SoakCheck(SoakPipeline p, Ledger ledger) {
    this.p = p;
    this.ledger = ledger;
  }

  List<SoakVerdicts.Verdict> converged() throws Exception {
    long marker;
    try (WorkloadRunner r = new WorkloadRunner(p.db.jdbcUrl(), p.postgres.user(), p.postgres.password(), k -> { })) {
      marker = r.bumpMarker(WorkloadGenerator.MARKER);
    }
    long t0 = System.nanoTime();
    String[] last = {"nothing read yet"};
    String timedOut = "";
    try {
      Await.until("the replica to apply marker " + marker + " and finish every backfill", CONVERGE,
          () -> caughtUp(marker, last));
      System.out.printf(Locale.ROOT, "soak: the replica applied the final marker and every backfill %.1f s after"
          + " the writers stopped%n", (System.nanoTime() - t0) / 1e9);
    } catch (AssertionError e) {
      timedOut = " (the replica did not catch up within " + CONVERGE.toMinutes() + " minutes: " + last[0] + ")";
      System.out.println("soak: " + timedOut.trim());
    }
    Ledger.Audit audit = ledger.audit(p.replica);
    ReplicaComparator.Result result;
    try (Connection pg = p.db.connect(); Connection lite = SqliteFiles.open(p.replica)) {
      result = new ReplicaComparator(15).compare(pg, SoakPipeline.PUBLICATION, lite);
    }
    String differences = result.same() ? "" : "; the first: " + String.join("; ",
        result.differences().stream().map(Object::toString).toList());
    return List.of(
        new SoakVerdicts.Verdict("nothing lost, nothing applied twice (ledger audit)",
            audit.lost() == 0 && audit.twice() == 0, audit + timedOut),
        new SoakVerdicts.Verdict("replica equal to Postgres (every published table, cell by cell)",
            result.same() && timedOut.isEmpty(), String.format(Locale.ROOT, "%d tables, %,d rows, %d differences%s%s",
                result.tables(), result.rows(), result.total(), differences, timedOut)));
  }

  private boolean caughtUp(long marker, String[] last) {
    try (Connection lite = SqliteFiles.open(p.replica)) {
      String applied = single(lite, "SELECT n FROM " + WorkloadGenerator.MARKER + " WHERE id = 1");
      String backfilling = single(lite, "SELECT count(*) FROM \"_pg2lite.columns\" WHERE backfill IS NOT NULL");
      String copying = single(lite, "SELECT count(*) FROM sqlite_master WHERE type = 'table'"
          + " AND name LIKE '\\_pg2lite.copying.%' ESCAPE '\\'");
      last[0] = "marker " + applied + ", " + backfilling + " columns backfilling, " + copying + " tables being copied";
      return Long.parseLong(applied) >= marker && "0".equals(backfilling) && "0".equals(copying);
    } catch (SQLException | RuntimeException e) {
      last[0] = String.valueOf(e.getMessage());
      return false;
    }
  }

  private static String single(Connection c, String sql) throws SQLException {
    List<List<String>> rows = QueryRows.of(c, sql);
    return rows.isEmpty() ? "-1" : rows.get(0).get(0);
  }
}
