package io.pg2lite.sink.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pg2lite.testkit.TestStack;
import io.pg2lite.testkit.TestStackExtension;
import io.pg2lite.testkit.fuzz.ReplicaComparator;
import io.pg2lite.testkit.support.Await;
import java.nio.file.Path;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Every kind of DDL, replicated without event triggers ({@code ddl.detection = replication-stream},
 * ADR 0027): each case changes a table of its own, and the replica must then equal Postgres cell
 * by cell ({@link ReplicaComparator}: the published tables, their columns by name, every row).
 *
 * <p>Each DDL runs three ways, as docs/source-connector.md's table says a replica shows it:
 * <ol>
 *   <li>alone, with no row change after it: only a catalog check can report it;</li>
 *   <li>with rows written after it: the tables' Relation messages report what the check has not;</li>
 *   <li>while the source is stopped, in the same transaction as rows: the source resumes behind
 *       it, and the Relation messages are diffed against the schema it recorded (ADR 0028).</li>
 * </ol>
 */
@ExtendWith(TestStackExtension.class)
class SchemaChangesWithoutTriggersIT {
  private static final Duration WAIT = Duration.ofSeconds(120);
  private static final String PUB = "nodt_pub";

  /** One DDL kind: its table, the DDL, and rows to write after it (the columns the table has then). */
  private record Case(String name, String ddl, String rowsAfter) {}

  private static final List<Case> CASES = List.of(
      new Case("add_null", "ALTER TABLE add_null ADD COLUMN n int", "INSERT INTO add_null VALUES (100, 'r', 1)"),
      new Case("add_const", "ALTER TABLE add_const ADD COLUMN n int NOT NULL DEFAULT 7",
          "INSERT INTO add_const VALUES (100, 'r', 8)"),
      new Case("add_volatile", "ALTER TABLE add_volatile ADD COLUMN n double precision DEFAULT random()",
          "UPDATE add_volatile SET n = 0.5 WHERE id = 1"),
      new Case("drop_col", "ALTER TABLE drop_col DROP COLUMN v", "INSERT INTO drop_col VALUES (100)"),
      new Case("rename_col", "ALTER TABLE rename_col RENAME COLUMN v TO w", "UPDATE rename_col SET w = 'x' WHERE id = 2"),
      new Case("retype_col", "ALTER TABLE retype_col ALTER COLUMN v TYPE int USING length(v)",
          "INSERT INTO retype_col VALUES (100, 42)"),
      new Case("replace_col", "ALTER TABLE replace_col DROP COLUMN v, ADD COLUMN v text DEFAULT 'fresh'",
          "DELETE FROM replace_col WHERE id = 3"),
      new Case("rename_tab", "ALTER TABLE rename_tab RENAME TO renamed_tab", "INSERT INTO renamed_tab VALUES (100, 'r')"),
      new Case("moved_tab", "ALTER TABLE moved_tab SET SCHEMA other", "INSERT INTO other.moved_tab VALUES (100, 'r')"),
      new Case("drop_tab", "DROP TABLE drop_tab", null),
      new Case("unpub_tab", "ALTER PUBLICATION " + PUB + " DROP TABLE unpub_tab", "INSERT INTO unpub_tab VALUES (100, 'r')"),
      new Case("new_tab", "CREATE TABLE new_tab (id int PRIMARY KEY, v text); "
          + "INSERT INTO new_tab SELECT g, 'n' || g FROM generate_series(1, 20) g; "
          + "ALTER PUBLICATION " + PUB + " ADD TABLE new_tab", "INSERT INTO new_tab VALUES (100, 'r')"),
      new Case("ctas_tab", "CREATE TABLE ctas_tab AS SELECT id, v || '!' AS v FROM add_null; "
          + "ALTER TABLE ctas_tab ADD PRIMARY KEY (id); ALTER PUBLICATION " + PUB + " ADD TABLE ctas_tab",
          "UPDATE ctas_tab SET v = 'u' WHERE id = 1"),
      new Case("index_tab", "CREATE INDEX index_tab_v ON index_tab (v DESC)", "INSERT INTO index_tab VALUES (100, 'r')"),
      new Case("rekey_tab", "ALTER TABLE rekey_tab ADD COLUMN k int NOT NULL DEFAULT 0; "
          + "ALTER TABLE rekey_tab DROP CONSTRAINT rekey_tab_pkey, ADD PRIMARY KEY (id, k)",
          "INSERT INTO rekey_tab VALUES (1, 'second', 1)"),
      new Case("full_tab", "ALTER TABLE full_tab REPLICA IDENTITY FULL", "DELETE FROM full_tab WHERE id = 4"),
      new Case("null_tab", "ALTER TABLE null_tab ALTER COLUMN v SET NOT NULL; ALTER TABLE null_tab ALTER COLUMN v "
          + "DROP NOT NULL", "INSERT INTO null_tab VALUES (100, NULL)"),
      new Case("trunc_tab", "TRUNCATE trunc_tab", "INSERT INTO trunc_tab VALUES (100, 'r')"),
      new Case("swap_tab", "ALTER TABLE swap_tab ADD COLUMN w text DEFAULT 'w'; "
          + "ALTER TABLE swap_tab RENAME COLUMN v TO tmp; ALTER TABLE swap_tab RENAME COLUMN w TO v; "
          + "ALTER TABLE swap_tab RENAME COLUMN tmp TO w", "INSERT INTO swap_tab VALUES (100, 'v100', 'w100')"),
      new Case("readd_tab", "ALTER PUBLICATION " + PUB + " DROP TABLE readd_tab; "
          + "UPDATE readd_tab SET v = 'while out' WHERE id <= 5; "
          + "ALTER PUBLICATION " + PUB + " ADD TABLE readd_tab", "UPDATE readd_tab SET v = 'back' WHERE id = 6"),
      new Case("recreate_tab", "ALTER PUBLICATION " + PUB + " DROP TABLE recreate_tab; DROP TABLE recreate_tab; "
          + "CREATE TABLE recreate_tab (id int PRIMARY KEY, v text, extra int); "
          + "INSERT INTO recreate_tab VALUES (1, 'again', 1); ALTER PUBLICATION " + PUB + " ADD TABLE recreate_tab",
          "INSERT INTO recreate_tab VALUES (2, 'r', 2)"));

  /** The second round, each DDL in one transaction with rows (the Relation message path), after a restart. */
  private static final List<String> WITH_ROWS = List.of(
      "ALTER TABLE add_null ADD COLUMN m text DEFAULT 'mm'; INSERT INTO add_null VALUES (200, 's', 2, 'x')",
      "ALTER TABLE rename_col RENAME COLUMN w TO w2; UPDATE rename_col SET w2 = 'y' WHERE id = 1",
      "ALTER TABLE retype_col ALTER COLUMN v TYPE bigint; INSERT INTO retype_col VALUES (200, 9000000000)",
      "ALTER TABLE replace_col DROP COLUMN v; ALTER TABLE replace_col ADD COLUMN v int DEFAULT 3; "
          + "INSERT INTO replace_col VALUES (200, 4)",
      "ALTER TABLE renamed_tab RENAME TO renamed_again; INSERT INTO renamed_again VALUES (200, 's')",
      "ALTER TABLE full_tab REPLICA IDENTITY DEFAULT; UPDATE full_tab SET v = 'z' WHERE id = 5");

  @Test
  void everyKindOfDdlReachesTheReplicaWithoutEventTriggers(TestStack stack) throws Exception {
    try (Pipeline p = new Pipeline(stack, "nodt")) {
      List<String> setup = new ArrayList<>();
      setup.add("CREATE SCHEMA other");
      List<String> published = new ArrayList<>();
      for (Case c : CASES) {
        if (c.name().equals("new_tab") || c.name().equals("ctas_tab")) {
          continue;
        }
        setup.add("CREATE TABLE " + c.name() + " (id int PRIMARY KEY, v text)");
        setup.add("INSERT INTO " + c.name() + " SELECT g, 'v' || g FROM generate_series(1, 30) g");
        published.add(c.name());
      }
      setup.add("CREATE PUBLICATION " + PUB + " FOR TABLE " + String.join(", ", published));
      p.db.execute(setup.toArray(String[]::new));
      p.startSource(Map.of("publication.name", PUB, "ddl.detection", "replication-stream",
          "schema.check.interval.ms", "300"));
      Path replica = p.files.newFile("replica");
      p.startSink("a", replica);
      p.awaitReplicaEqualsPostgres(replica, PUB, "the tables as created");
      assertEquals(List.of(List.of("0")), p.postgres("SELECT count(*) FROM pg_namespace WHERE nspname = 'pg2lite'"),
          "nothing is installed in replication-stream mode");

      for (Case c : CASES) {
        p.db.execute(c.ddl().split("; "));
      }
      p.awaitReplicaEqualsPostgres(replica, PUB, "each DDL alone (catalog checks)");
      assertTrue(replicaIndexes(replica).contains("index_tab_v"), "the index created reaches the replica");

      for (Case c : CASES) {
        if (c.rowsAfter() != null) {
          p.db.execute(c.rowsAfter());
        }
      }
      p.awaitReplicaEqualsPostgres(replica, PUB, "rows written after each DDL");

      // Stopped (its offsets are stored with its Kafka transactions, exactly once): the DDL below
      // waits in the slot, and the source resumes behind it with the schema it recorded.
      String source = p.name + "-source";
      p.worker.rest().delete(source);
      Await.until("the source's slot released", WAIT, () -> {
        try {
          return p.postgres("SELECT count(*) FROM pg_replication_slots WHERE active").equals(List.of(List.of("0")));
        } catch (SQLException e) {
          return false;
        }
      });
      for (String tx : WITH_ROWS) {
        p.db.execute("BEGIN; " + tx + "; COMMIT");
      }
      p.db.execute("DROP INDEX index_tab_v");
      p.startSource(Map.of("publication.name", PUB, "ddl.detection", "replication-stream",
          "schema.check.interval.ms", "300"));
      p.awaitReplicaEqualsPostgres(replica, PUB, "DDL and rows in one transaction, after a restart");
      assertFalse(replicaIndexes(replica).contains("index_tab_v"), "the index dropped leaves the replica");
    }
  }

  private static List<String> replicaIndexes(Path replica) throws SQLException {
    return Pipeline.replica(replica, "SELECT name FROM sqlite_master WHERE type = 'index'").stream()
        .map(r -> r.get(0)).toList();
  }
}
