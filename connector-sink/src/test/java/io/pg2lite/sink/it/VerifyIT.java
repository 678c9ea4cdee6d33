package io.pg2lite.sink.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pg2lite.follower.Follower;
import io.pg2lite.testkit.support.Await;
import io.pg2lite.testkit.TestStack;
import io.pg2lite.testkit.TestStackExtension;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Verification end to end (issue 29): {@code SELECT pg2lite.verify(...)} in Postgres, the
 * source's digests in the change log, every replica's answer in its {@code _pg2lite.verify}
 * table. Replicas equal to Postgres match while writes go on; a replica changed by hand is named
 * with the table and the key range; a table being copied or changed during the verification is
 * "not comparable", never a false mismatch; two sinks and a follower answer the same request.
 */
@ExtendWith(TestStackExtension.class)
class VerifyIT {
  private static final Duration LONG = Duration.ofMinutes(3);
  /** Every type family the replica stores differently, and edge values. */
  private static final String WIDE = "CREATE TABLE wide (id int8 PRIMARY KEY, t text, n numeric, f float8, r real,"
      + " b bool, by bytea, ts timestamptz, d date, iv interval, j jsonb, a int4[], u uuid, m money)";
  private static final String WIDE_ROWS = "INSERT INTO wide SELECT g, 'v' || g, g / 7.0, "
      + "CASE g % 5 WHEN 0 THEN 'NaN'::float8 WHEN 1 THEN '-Infinity' WHEN 2 THEN -0.0 ELSE g * 0.1 END, g, g % 2 = 0,"
      + " decode(md5(g::text), 'hex'), CASE WHEN g % 7 = 0 THEN 'infinity'::timestamptz ELSE '2026-01-01'::timestamptz"
      + " + g * interval '1 minute' END, CASE WHEN g % 11 = 0 THEN '4713-01-01 BC'::date ELSE DATE '2026-01-01' + g"
      + " END, g * interval '1 second', jsonb_build_object('g', g, 'x', ARRAY[g]), ARRAY[g, NULL, -g],"
      + " md5(g::text)::uuid, g FROM generate_series(1, 12000) g";

  @Test
  void replicasEqualToPostgresMatchAndOneChangedByHandIsNamedThenResynced(TestStack stack) throws Exception {
    try (Pipeline p = new Pipeline(stack, "vf_main")) {
      p.db.execute(WIDE, WIDE_ROWS, "CREATE TABLE busy (id int PRIMARY KEY, v text, n int)",
          "INSERT INTO busy SELECT g, 'b' || g, 0 FROM generate_series(1, 30000) g",
          "CREATE TABLE tk (k text, d date, v text, PRIMARY KEY (k, d))",
          "INSERT INTO tk SELECT 'k' || (g % 50), DATE '2026-01-01' + g / 50, 'v' || g FROM generate_series(1, 9000) g",
          "CREATE PUBLICATION vf_main_pub FOR TABLE wide, busy, tk");
      p.startSource();
      Path replica = p.files.newFile("main");
      p.startSink("a", replica);
      for (String t : List.of("wide", "busy", "tk")) {
        p.awaitBackfilled(replica, t, LONG);
      }
      String all;
      try (RowChurn w = new RowChurn(p, "busy", 30000, 5)) {
        Thread.sleep(500);
        all = request(p, "SELECT pg2lite.verify()");
        Map<String, List<String>> results = awaitAnswered(replica, all, 3);
        assertTrue(w.transactions.get() > 50, "writes went on during the verification: " + w.transactions.get());
        for (String t : List.of("public.wide", "public.busy", "public.tk")) {
          assertEquals("match", results.get(t).get(0), t + ": " + results.get(t));
        }
        assertTrue(Long.parseLong(results.get("public.busy").get(3)) > 0,
            "rows the writer changed meanwhile were left out: " + results.get("public.busy"));
      }

      // By hand, behind the sink's back: one cell changed, one row deleted.
      try (Connection lite = io.pg2lite.testkit.sqlite.SqliteFiles.open(replica); Statement s = lite.createStatement()) {
        s.executeUpdate("UPDATE wide SET t = 'tampered' WHERE id = 5000");
        s.executeUpdate("DELETE FROM wide WHERE id = 11000");
      }
      String one = request(p, "SELECT pg2lite.verify('{wide}')");
      List<String> wide = awaitAnswered(replica, one, 1).get("public.wide");
      assertEquals("mismatch", wide.get(0), wide.toString());
      String detail = wide.get(1);
      // 12,000 rows: three ranges of 4,000 ids
      assertTrue(detail.contains("id 4001 to 8000"), "the range of id 5000 is named: " + detail);
      assertTrue(detail.contains("id 8001 to 12000"), "the range of id 11000 is named: " + detail);
      assertTrue(!detail.contains("id 1 to 4000"), "the untouched range is not: " + detail);
      assertEquals(12000, Long.parseLong(wide.get(2)), "source rows");
      assertEquals(11999, Long.parseLong(wide.get(4)), "replica rows: one deleted by hand");
      assertTrue(Pipeline.sinkMetric("vf_main-sink-a", "VerifyMismatches") >= 1, "the metric counts it");

      p.db.execute("SELECT pg2lite.resync('wide')");
      Await.until("the table copied again", LONG, () -> {
        try {
          return Pipeline.replica(replica, "SELECT t FROM wide WHERE id = 5000").equals(List.of(List.of("v5000")))
              && Pipeline.replica(replica, "SELECT count(*) FROM wide").equals(List.of(List.of("12000")));
        } catch (SQLException e) {
          return false;
        }
      });
      p.awaitBackfilled(replica, "wide", LONG);
      String again = request(p, "SELECT pg2lite.verify('{wide}')");
      assertEquals("match", awaitAnswered(replica, again, 1).get("public.wide").get(0), "after the resync");

      String range = request(p, "SELECT pg2lite.verify('{busy}', 100, 199)");
      List<String> ranged = awaitAnswered(replica, range, 1).get("public.busy");
      assertEquals("match", ranged.get(0), ranged.toString());
      assertTrue(Long.parseLong(ranged.get(2)) <= 100, "only the range's rows: " + ranged);
      p.awaitReplicaEqualsPostgres(replica, "vf_main_pub", "after the verifications");
    }
  }

  @Test
  void aTableBeingCopiedOrChangedWhileVerifiedIsNotComparableNeverDifferent(TestStack stack) throws Exception {
    try (Pipeline p = new Pipeline(stack, "vf_ddl")) {
      p.db.execute("CREATE TABLE slow (id int PRIMARY KEY, v text)",
          "INSERT INTO slow SELECT g, 'v' || g FROM generate_series(1, 60000) g",
          "CREATE TABLE late (id int PRIMARY KEY, v text)",
          "INSERT INTO late SELECT g, 'v' || g FROM generate_series(1, 100000) g",
          "CREATE PUBLICATION vf_ddl_pub FOR TABLE slow");
      // Reads of copies and verifications at 20,000 rows/s: the 60,000-row verification takes 3 s.
      p.startSource(Map.of("backfill.max.rows.per.second", "20000"));
      Path replica = p.files.newFile("ddl");
      p.startSink("a", replica);
      p.awaitBackfilled(replica, "slow", LONG);

      p.db.execute("ALTER PUBLICATION vf_ddl_pub ADD TABLE late"); // a 5-s copy at that rate
      String during = request(p, "SELECT pg2lite.verify('{late,slow}')");
      Map<String, List<String>> r = awaitAnswered(replica, during, 2);
      assertEquals("not-comparable", r.get("public.late").get(0), "being backfilled: " + r.get("public.late"));
      assertTrue(r.get("public.late").get(1).contains("backfilled"), r.get("public.late").toString());
      assertEquals("match", r.get("public.slow").get(0), r.get("public.slow").toString());

      // DDL that changes the table waits for its verification (the snapshot's lock), as for a
      // copy; a publication change does not: the table leaves the replica while it is read.
      String dropped = request(p, "SELECT pg2lite.verify('{slow}')");
      Thread.sleep(1000); // the 60,000-row read takes 3 s
      p.db.execute("ALTER PUBLICATION vf_ddl_pub DROP TABLE slow");
      List<String> gone = awaitAnswered(replica, dropped, 1).get("public.slow");
      assertEquals("not-comparable", gone.get(0), gone.toString());
      assertTrue(gone.get(1).contains("schema changed"), gone.toString());
      p.db.execute("ALTER PUBLICATION vf_ddl_pub ADD TABLE slow");
      p.awaitBackfilled(replica, "slow", LONG);
      p.awaitBackfilled(replica, "late", LONG);
      String after = request(p, "SELECT pg2lite.verify()");
      Map<String, List<String>> done = awaitAnswered(replica, after, 2);
      assertEquals("match", done.get("public.late").get(0), done.toString());
      assertEquals("match", done.get("public.slow").get(0), done.toString());
    }
  }

  @Test
  void twoSinksAndAFollowerAnswerTheSameRequest(TestStack stack) throws Exception {
    try (Pipeline p = new Pipeline(stack, "vf_fan")) {
      p.db.execute("CREATE TABLE t (id int PRIMARY KEY, v text, n int)",
          "INSERT INTO t SELECT g, 'v' || g, 0 FROM generate_series(1, 20000) g", "CREATE PUBLICATION vf_fan_pub FOR TABLE t");
      p.startSource();
      Path a = p.files.newFile("a");
      Path b = p.files.newFile("b");
      Path f = p.files.newFile("follower");
      p.startSink("a", a);
      p.startSink("b", b);
      try (Follower follower = Follower.start(FollowerIT.settings(stack, p, f, Map.of())); RowChurn w = new RowChurn(p, "t", 20000, 5)) {
        for (Path replica : List.of(a, b, f)) {
          p.awaitBackfilled(replica, "t", LONG);
        }
        String id = request(p, "SELECT pg2lite.verify()");
        List<String> answers = new ArrayList<>();
        for (Path replica : List.of(a, b, f)) {
          List<String> r = awaitAnswered(replica, id, 1).get("public.t");
          assertEquals("match", r.get(0), replica.getFileName() + ": " + r);
          answers.add(r.get(2) + "/" + r.get(3));
        }
        assertEquals(1, answers.stream().distinct().count(), "the same digests, rows and rows left out: " + answers);
      }
    }
  }

  @Test
  void withVerifyMismatchFailADifferenceStopsTheSinkAndTheFollower(TestStack stack) throws Exception {
    try (Pipeline p = new Pipeline(stack, "vf_fail")) {
      p.db.execute("CREATE TABLE t (id int PRIMARY KEY, v text)",
          "INSERT INTO t SELECT g, 'v' || g FROM generate_series(1, 500) g", "CREATE PUBLICATION vf_fail_pub FOR TABLE t");
      p.startSource();
      Path replica = p.files.newFile("fail");
      Path followed = p.files.newFile("fail-follower");
      String sink = p.startSink("a", replica, Map.of("verify.mismatch", "fail"));
      try (Follower follower = Follower.start(FollowerIT.settings(stack, p, followed,
          Map.of("verify.mismatch", "fail")))) {
        for (Path r : List.of(replica, followed)) {
          p.awaitBackfilled(r, "t", LONG);
        }
        String first = request(p, "SELECT pg2lite.verify()");
        for (Path r : List.of(replica, followed)) {
          assertEquals("match", awaitAnswered(r, first, 1).get("public.t").get(0));
        }
        for (Path r : List.of(replica, followed)) {
          try (Connection lite = io.pg2lite.testkit.sqlite.SqliteFiles.open(r); Statement s = lite.createStatement()) {
            s.executeUpdate("UPDATE t SET v = 'tampered' WHERE id = 42");
          }
        }
        String id = request(p, "SELECT pg2lite.verify()");
        p.db.execute("INSERT INTO t VALUES (501, 'after')"); // the next put meets the failure
        String failure = p.worker.rest().awaitFailed(sink, LONG).failure();
        assertTrue(failure.contains("table public.t different from Postgres"), failure);
        Await.until("the follower stopped", LONG, () -> follower.state() == Follower.State.FAILED);
        assertTrue(follower.failure().orElseThrow().getMessage().contains("public.t"),
            follower.failure().orElseThrow().getMessage());
        assertEquals("mismatch", awaitAnswered(replica, id, 1).get("public.t").get(0), "recorded before it stopped");
      }
    }
  }

  /** Runs the request in Postgres and returns its id. */
  private static String request(Pipeline p, String sql) throws SQLException {
    return p.postgres(sql).get(0).get(0);
  }

  /**
   * Waits until the replica has answered request {@code id} for {@code tables} tables; per table
   * (schema.name): result, detail, source rows, excluded, replica rows.
   */
  private static Map<String, List<String>> awaitAnswered(Path replica, String id, int tables) {
    Map<String, List<String>> out = new HashMap<>();
    String[] last = {"nothing"};
    try {
      Await.until("verification " + id + " answered in " + replica.getFileName(), LONG, () -> {
        try {
          List<List<String>> rows = Pipeline.replica(replica, "SELECT table_name, result, coalesce(detail, ''), "
              + "coalesce(source_rows, -1), coalesce(excluded, -1), coalesce(replica_rows, -1) FROM \"_pg2lite.verify\""
              + " WHERE id = '" + id + "'");
          last[0] = rows.toString();
          if (rows.size() < tables || rows.stream().anyMatch(r -> r.get(1).equals("pending"))) {
            return false;
          }
          rows.forEach(r -> out.put(r.get(0), r.subList(1, 6)));
          return true;
        } catch (SQLException e) {
          last[0] = e.getMessage();
          return false;
        }
      });
    } catch (AssertionError e) {
      throw new AssertionError(e.getMessage() + "; last: " + last[0], e);
    }
    return out;
  }
}
