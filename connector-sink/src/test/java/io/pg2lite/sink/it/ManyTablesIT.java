package io.pg2lite.sink.it;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.pg2lite.testkit.TestStack;
import io.pg2lite.testkit.TestStackExtension;
import io.pg2lite.testkit.support.Await;
import java.nio.file.Path;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Issue 33, a thousand tables: 1,000 tables of 20 rows added to the publication of a running
 * pipeline at once, and a pipeline started on 2,000 tables (a live change to a table created after
 * the start must show while the copies go on). Each replica ends equal to Postgres, table by
 * table. How fast is the bench's business (ManyTablesBench, docs/performance.md), not a test's.
 */
@ExtendWith(TestStackExtension.class)
class ManyTablesIT {
  private static final Duration WAIT = Duration.ofMinutes(5);

  /** {@code n} tables {@code many.t_1..n} with 20 rows each, and varied values. */
  private static void createTables(Pipeline p, int n) throws SQLException {
    p.db.execute("CREATE SCHEMA many", "DO $$ BEGIN FOR i IN 1.." + n + " LOOP "
        + "EXECUTE format('CREATE TABLE many.t_%s (id int PRIMARY KEY, name text, qty int, at timestamptz)', i); "
        + "EXECUTE format('CREATE INDEX ON many.t_%s (qty)', i); "
        + "EXECUTE format('INSERT INTO many.t_%s SELECT g, ''item '' || g || '' of %s'', g * %s, "
        + "timestamptz ''2026-01-01'' + g * interval ''1 hour'' FROM generate_series(1, 20) g', i, i, i); "
        + "END LOOP; END $$");
  }

  /** Every table's rows as Postgres prints them, one line per table, against the replica's. */
  private static void awaitEveryTableEqual(Pipeline p, Path replica, int n) throws Exception {
    Await.until(n + " tables copied", WAIT, () -> {
      try {
        return Pipeline.replica(replica, "SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name LIKE "
            + "'many.t%'").get(0).get(0).equals(Integer.toString(n));
      } catch (SQLException e) {
        return false;
      }
    });
    List<String> expected = new ArrayList<>();
    List<String> actual = new ArrayList<>();
    StringBuilder all = new StringBuilder();
    for (int i = 1; i <= n; i++) {
      all.append(i == 1 ? "" : " UNION ALL ").append("SELECT ").append(i).append(", (SELECT string_agg(id || '|' || "
          + "name || '|' || qty || '|' || to_char(at AT TIME ZONE 'UTC', 'YYYY-MM-DD\"T\"HH24:MI:SS\"Z\"'), ',' "
          + "ORDER BY id) FROM many.t_").append(i).append(")");
    }
    for (List<String> row : p.postgres("SELECT * FROM (" + all + ") x ORDER BY 1")) {
      expected.add("many.t_" + row.get(0) + " " + row.get(1));
    }
    try (java.sql.Connection c = io.pg2lite.testkit.sqlite.SqliteFiles.open(replica);
        java.sql.Statement s = c.createStatement()) {
      for (int i = 1; i <= n; i++) {
        try (java.sql.ResultSet rs = s.executeQuery("SELECT group_concat(id || '|' || name || '|' || qty || '|' || at, "
            + "',') FROM (SELECT * FROM \"many.t_" + i + "\" ORDER BY id)")) {
          rs.next();
          actual.add("many.t_" + i + " " + rs.getString(1));
        }
      }
    }
    assertEquals(expected, actual);
  }

  @Test
  void aThousandTablesAddedAtOnceAreCopiedWhole(TestStack stack) throws Exception {
    try (Pipeline p = new Pipeline(stack, "many_added")) {
      p.db.execute("CREATE TABLE live (id int PRIMARY KEY)", "CREATE PUBLICATION many_added_pub FOR TABLE live");
      createTables(p, 1000);
      p.startSource();
      Path replica = p.files.newFile("r");
      p.startSink("r", replica);
      p.awaitBackfilled(replica, "live", WAIT);
      p.db.execute("ALTER PUBLICATION many_added_pub ADD TABLES IN SCHEMA many");
      awaitEveryTableEqual(p, replica, 1000);
      assertEquals(List.of(List.of("1000")), Pipeline.replica(replica, "SELECT count(*) FROM sqlite_master WHERE "
          + "type = 'index' AND tbl_name LIKE 'many.t%' AND name LIKE '%qty%'"), "every table's index with it");
    }
  }

  @Test
  void twoThousandTablesStartAndALiveChangeShowsWhileTheyAreCopied(TestStack stack) throws Exception {
    try (Pipeline p = new Pipeline(stack, "many_start")) {
      createTables(p, 2000);
      p.db.execute("CREATE PUBLICATION many_start_pub FOR TABLES IN SCHEMA many, public");
      p.startSource();
      Path replica = p.files.newFile("r");
      p.startSink("r", replica);
      p.db.execute("CREATE TABLE public.probe (id int PRIMARY KEY)", "INSERT INTO public.probe VALUES (7)");
      Await.until("the live row visible", WAIT, () -> {
        try {
          return Pipeline.replica(replica, "SELECT id FROM probe").equals(List.of(List.of("7")));
        } catch (SQLException e) {
          return false;
        }
      });
      awaitEveryTableEqual(p, replica, 2000);
    }
  }
}
