package io.pg2lite.sink.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pg2lite.testkit.ConnectorConfigs;
import io.pg2lite.testkit.TestStack;
import io.pg2lite.testkit.TestStackExtension;
import java.lang.management.ManagementFactory;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import javax.management.ObjectName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * A source whose role is made as a managed Postgres makes it (issue 34): LOGIN REPLICATION,
 * CREATE on the database, SELECT on the tables, nothing installed for it, no superuser. With the
 * default {@code ddl.detection = auto} it tries to install its catalog, may not (event triggers
 * need a superuser here), and runs without event triggers (ADR 0027): {@code validate()} passes,
 * the task runs, its metric says which mode, nothing is left installed, and schema changes and a
 * table added to the publication reach a replica equal to Postgres. Asked for event triggers, the
 * same role gets a validation error naming the setting.
 */
@ExtendWith(TestStackExtension.class)
class ManagedRoleIT {
  private static final String ROLE = "managed_app";
  private static final String PUB = "managed_pub";

  @Test
  void aRoleThatMayNotCreateEventTriggersRunsFromTheReplicationStream(TestStack stack) throws Exception {
    try (Pipeline p = new Pipeline(stack, "managed")) {
      p.db.execute("CREATE TABLE orders (id int PRIMARY KEY, customer int, amount numeric(12, 2))",
          "INSERT INTO orders SELECT g, g % 10, g * 1.5 FROM generate_series(1, 200) g",
          "CREATE ROLE " + ROLE + " WITH LOGIN REPLICATION PASSWORD 'app-secret'",
          "GRANT CONNECT, CREATE ON DATABASE " + p.db.name() + " TO " + ROLE,
          "GRANT USAGE ON SCHEMA public TO " + ROLE,
          "GRANT SELECT ON public.orders TO " + ROLE,
          "CREATE PUBLICATION " + PUB + " FOR TABLE public.orders");
      Map<String, String> config = new HashMap<>(ConnectorConfigs.source(stack, p.name + "-source", p.db.name(),
          p.name, p.topic));
      config.putAll(Map.of("database.user", ROLE, "database.password", "app-secret", "publication.name", PUB,
          "schema.check.interval.ms", "500"));

      assertEquals(Map.of(), p.worker.rest().validate(ConnectorConfigs.SOURCE_CLASS, config),
          "auto runs without event triggers: a warning, not an error");
      Map<String, String> triggers = new HashMap<>(config);
      triggers.put("ddl.detection", "event-triggers");
      List<String> errors = p.worker.rest().validate(ConnectorConfigs.SOURCE_CLASS, triggers).get("ddl.detection");
      assertTrue(errors != null && errors.get(0).contains("may not install pg2lite's catalog and event triggers"),
          String.valueOf(errors));

      p.startSource(Map.of("database.user", ROLE, "database.password", "app-secret", "publication.name", PUB,
          "schema.check.interval.ms", "500"));
      ObjectName mbean = new ObjectName("io.pg2lite:type=source,connector=" + ObjectName.quote(p.name + "-source")
          + ",slot=" + ObjectName.quote(p.name + "_slot"));
      assertEquals("replication-stream", ManagementFactory.getPlatformMBeanServer().getAttribute(mbean, "DdlDetection"));
      assertEquals(List.of("0"), p.db.queryColumn("SELECT count(*)::text FROM pg_namespace WHERE nspname = 'pg2lite'"),
          "the failed install left nothing behind");
      Path replica = p.files.newFile("r");
      p.startSink("r", replica);

      p.db.execute("ALTER TABLE orders ADD COLUMN note text DEFAULT 'new'",
          "UPDATE orders SET amount = amount + 1 WHERE id % 7 = 0",
          "ALTER TABLE orders RENAME COLUMN customer TO client",
          "CREATE TABLE later (id int PRIMARY KEY, tag text)",
          "INSERT INTO later SELECT g, 't' || g FROM generate_series(1, 300) g",
          "GRANT SELECT ON public.later TO " + ROLE,
          "ALTER PUBLICATION " + PUB + " ADD TABLE public.later",
          "CREATE INDEX later_tag ON later (tag)");
      p.awaitReplicaEqualsPostgres(replica, PUB, "DDL and a table added to the publication");
      assertTrue(Pipeline.replica(replica, "SELECT name FROM sqlite_master WHERE type = 'index'").stream()
          .anyMatch(r -> r.get(0).equals("later_tag")), "the index reaches the replica through a catalog check");
      p.worker.rest().awaitRunning(p.name + "-source", Pipeline.WAIT);
    }
  }
}
