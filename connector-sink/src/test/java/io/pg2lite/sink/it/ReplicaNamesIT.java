package io.pg2lite.sink.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pg2lite.testkit.TestStack;
import io.pg2lite.testkit.TestStackExtension;
import java.nio.file.Path;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Issue 33, names that cannot collide: tables with odd names (dots, quotes, ASCII case, unicode,
 * 63-byte names, reserved words) replicate under their documented replica names; of two that
 * would be one replica table (or column), the first is replicated and the second refused, at the
 * start and when it is published later, while every other table goes on and neither connector
 * fails; so is a column named like the replica's own. Columns whose names differ only in case
 * reach the admission at all thanks to {@code CaseDistinctRelations} (Debezium's decoder refused
 * their table).
 */
@ExtendWith(TestStackExtension.class)
class ReplicaNamesIT {
  private static final String LONG = "t_" + "x".repeat(61); // 63 bytes, Postgres' longest name

  @Test
  void oddNamesReplicateAndCollidingOnesAreRefusedWhileTheRestGoesOn(TestStack stack) throws Exception {
    try (Pipeline p = new Pipeline(stack, "names")) {
      p.db.execute("CREATE SCHEMA s1", "CREATE SCHEMA \"Odd Schema\"",
          "CREATE TABLE s1.t (id int PRIMARY KEY, v text)",
          "CREATE TABLE public.\"s1.t\" (id int PRIMARY KEY, v text)", // later: refused (is \"s1.t\" too)
          "CREATE TABLE \"Orders\" (id int PRIMARY KEY, v text)",
          "CREATE TABLE orders (id int PRIMARY KEY, v text)", // refused: SQLite ignores ASCII case
          "CREATE TABLE \"" + LONG + "\" (id int PRIMARY KEY, v text)",
          "CREATE TABLE \"select\" (\"order\" int PRIMARY KEY, \"from\" text)",
          "CREATE TABLE \"a\"\"b; DROP TABLE x\" (id int PRIMARY KEY, v text)",
          "CREATE TABLE \"日本語\" (id int PRIMARY KEY, \"列\" text)",
          "CREATE TABLE \"Odd Schema\".\"Mixed Case\" (id int PRIMARY KEY, v text)",
          "CREATE TABLE cols (id int PRIMARY KEY, \"Name\" text, name text, \"_0_version\" text, \"é\" text,"
              + " \"É\" text)",
          "CREATE TABLE \"_pg2lite.state\" (id int PRIMARY KEY)");
      String[] tables = {"s1.t", "public.\"s1.t\"", "\"Orders\"", "orders", "\"" + LONG + "\"", "\"select\"",
          "\"a\"\"b; DROP TABLE x\"", "\"日本語\"", "\"Odd Schema\".\"Mixed Case\"", "cols", "\"_pg2lite.state\""};
      p.db.execute("CREATE PUBLICATION names_pub FOR TABLE " + String.join(", ", tables));
      for (String t : tables) {
        if (!t.equals("\"_pg2lite.state\"")) {
          p.db.execute("INSERT INTO " + t + " VALUES (1, 'copied')".replace(", 'copied')",
              t.equals("cols") ? ", 'N', 'n', 'v', 'e', 'E')" : ", 'copied')"));
        }
      }
      p.startSource();
      Path replica = p.files.newFile("names");
      String sink = p.startSink("a", replica);
      p.awaitBackfilled(replica, "cols", Pipeline.WAIT);

      Set<String> expected = new TreeSet<>(List.of("s1.t", "Orders", LONG, "select", "a\"b; DROP TABLE x", "日本語",
          "Odd Schema.Mixed Case", "cols"));
      p.awaitEqual(replica, "SELECT 8", "SELECT count(*) FROM sqlite_master WHERE type = 'table'"
          + " AND name NOT LIKE '\\_pg2lite.%' ESCAPE '\\'");
      assertEquals(expected, new TreeSet<>(Pipeline.replica(replica, "SELECT name FROM sqlite_master WHERE type = "
          + "'table' AND name NOT LIKE '\\_pg2lite.%' ESCAPE '\\'").stream().map(r -> r.get(0)).toList()));
      assertEquals(List.of(List.of("id"), List.of("Name"), List.of("é"), List.of("É")),
          Pipeline.replica(replica, "SELECT name FROM pragma_table_info('cols') WHERE name <> '_0_version'"),
          "of \"Name\" and name the first is replicated (SQLite folds ASCII case only: é and É are two); an "
              + "upstream column named _0_version is not: the replica's own _0_version stays its own");
      assertEquals(List.of(List.of("N", "e", "E")), Pipeline.replica(replica, "SELECT \"Name\", \"é\", \"É\" FROM cols"),
          "each value in its own column");

      // Live rows, and a colliding table published while running: refused, the rest goes on.
      p.db.execute("CREATE TABLE \"S1.T\" (id int PRIMARY KEY, v text)",
          "ALTER PUBLICATION names_pub ADD TABLE \"S1.T\"", "INSERT INTO \"S1.T\" VALUES (9, 'refused')");
      for (String t : tables) {
        if (!t.equals("\"_pg2lite.state\"")) {
          p.db.execute("INSERT INTO " + t + " VALUES (2, 'live')".replace(", 'live')",
              t.equals("cols") ? ", 'N2', 'n2', 'v2', 'e2', 'E2')" : ", 'live')"));
        }
      }
      p.db.execute("UPDATE orders SET v = 'refused'", "DELETE FROM public.\"s1.t\"");
      p.awaitEqual(replica, "SELECT 'live'", "SELECT v FROM \"s1.t\" WHERE id = 2");
      assertEquals(List.of(List.of("1", "copied"), List.of("2", "live")),
          Pipeline.replica(replica, "SELECT id, v FROM \"s1.t\" ORDER BY id"), "s1.t alone, not public.\"s1.t\"");
      p.awaitEqual(replica, "SELECT 'N2'", "SELECT \"Name\" FROM cols WHERE id = 2");
      for (String t : expected) {
        assertEquals(List.of(List.of("2")), Pipeline.replica(replica, "SELECT count(*) FROM \""
            + t.replace("\"", "\"\"") + "\""), t);
      }
      assertTrue(p.worker.rest().status(p.name + "-source").isRunning(), "the source goes on");
      assertTrue(p.worker.rest().status(sink).isRunning(), "the sink goes on");
      assertFalse(Pipeline.replica(replica, "SELECT name FROM sqlite_master").stream()
          .anyMatch(r -> r.get(0).equals("S1.T")));
      assertTrue(p.postgres("SELECT count(*) FROM \"S1.T\"").get(0).get(0).equals("1"));

      // Renamed out of the collision, the refused table comes in, copied by a backfill.
      p.db.execute("ALTER TABLE orders RENAME TO orders2");
      p.awaitEqual(replica, "SELECT id, v FROM orders2 ORDER BY id", "SELECT id, v FROM orders2 ORDER BY id");
      assertEquals(List.of(List.of("1", "refused"), List.of("2", "refused")),
          Pipeline.replica(replica, "SELECT id, v FROM orders2 ORDER BY id"));
    }
  }
}
