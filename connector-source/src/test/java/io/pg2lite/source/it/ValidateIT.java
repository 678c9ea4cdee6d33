package io.pg2lite.source.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pg2lite.source.Pg2liteSourceConnector;
import io.pg2lite.testkit.TestStack;
import io.pg2lite.testkit.TestStackExtension;
import io.pg2lite.testkit.ConnectorConfigs;
import io.pg2lite.testkit.postgres.PostgresServer;
import io.pg2lite.testkit.postgres.TestDatabase;
import java.net.ServerSocket;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/** Bad configs get per-field errors from validate(), through the worker's REST API. */
@ExtendWith(TestStackExtension.class)
class ValidateIT {
  private static Map<String, List<String>> validate(TestStack stack, Map<String, String> config) {
    return stack.connect().rest().validate(Pg2liteSourceConnector.class.getName(), config);
  }

  private static void assertError(Map<String, List<String>> errors, String field, String text) {
    assertTrue(errors.containsKey(field), "expected an error on " + field + ", got " + errors);
    assertTrue(errors.get(field).stream().anyMatch(m -> m.contains(text)),
        "expected \"" + text + "\" in the errors of " + field + ": " + errors.get(field));
  }

  @Test
  void aGoodConfigValidates(TestStack stack) throws Exception {
    try (SourceFixture f = new SourceFixture(stack, "validate_ok")) {
      f.db.execute("CREATE TABLE t (id int PRIMARY KEY)", "CREATE PUBLICATION validate_ok_pub FOR TABLE t");
      assertEquals(Map.of(), validate(stack, f.config()));
    }
  }

  /**
   * Issue 27: a Postgres below 15 is refused at validate naming the server and its version (the
   * catalog function needs 15's pg_publication_tables.attnames; without this check the start-up
   * failed deep in the catalog install). A real Postgres 14, from binaries the build copies.
   */
  @Test
  void aPostgresBelow15IsRefusedNamingItsVersion(TestStack stack) throws Exception {
    try (PostgresServer old = PostgresServer.start(14); TestDatabase db = old.newDatabase("validate_pg14")) {
      db.execute("CREATE TABLE t (id int PRIMARY KEY)", "CREATE PUBLICATION validate_pg14_pub FOR TABLE t");
      Map<String, String> c = ConnectorConfigs.source(old, stack.kafka().bootstrapServers(), "validate_pg14", db.name(),
          "validate_pg14", stack.kafka().uniqueTopicName("validate_pg14"));
      Map<String, List<String>> errors = validate(stack, c);
      assertError(errors, "database.hostname", "pg2lite needs PostgreSQL 15 or newer");
      assertError(errors, "database.hostname", old.version().replace("PostgreSQL ", "runs ").split(" on ")[0]);
    }
  }

  @Test
  void wrongCredentialsMissingDatabaseAndUnreachableHost(TestStack stack) throws Exception {
    try (SourceFixture f = new SourceFixture(stack, "validate_conn")) {
      Map<String, String> c = f.config();
      c.put("database.password", "wrong");
      // The embedded server trusts local connections, so a wrong password alone passes; a
      // role that does not exist is what fails authentication there.
      c.put("database.user", "nobody");
      Map<String, List<String>> e = validate(stack, c);
      assertTrue(e.containsKey("database.user"), e.toString());

      c = f.config();
      c.put("database.dbname", "no_such_db");
      assertError(validate(stack, c), "database.dbname", "does not exist");

      c = f.config();
      int closedPort;
      try (ServerSocket s = new ServerSocket(0)) {
        closedPort = s.getLocalPort();
      }
      c.put("database.port", String.valueOf(closedPort));
      assertError(validate(stack, c), "database.hostname", "cannot connect");

      // A host list (issue 27): the first server is down, the second answers; an entry that is
      // no host is refused naming it.
      f.db.execute("CREATE TABLE t (id int PRIMARY KEY)", "CREATE PUBLICATION validate_conn_pub FOR TABLE t");
      c = f.config();
      c.put("database.hostname", "localhost:" + closedPort + "," + stack.postgres().host() + ":"
          + stack.postgres().port());
      assertEquals(Map.of(), validate(stack, c));
      c.put("database.hostname", "localhost:" + closedPort + ",,other");
      assertError(validate(stack, c), "database.hostname", "has an empty entry");
    }
  }

  @Test
  void missingPrivilegePublicationKeysAndTopic(TestStack stack) throws Exception {
    try (SourceFixture f = new SourceFixture(stack, "validate_db")) {
      f.db.execute("CREATE TABLE keyless (v text)", "CREATE TABLE keyed (id int PRIMARY KEY)",
          "DO $$ BEGIN IF NOT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = 'plain') THEN "
              + "CREATE ROLE plain LOGIN PASSWORD 'plain'; END IF; END $$");
      Map<String, String> c = f.config();
      assertError(validate(stack, c), "publication.name", "does not exist");

      f.db.execute("CREATE PUBLICATION validate_db_pub FOR TABLE keyless, keyed");
      assertError(validate(stack, c), "publication.name", "public.keyless");

      c.put("database.user", "plain");
      c.put("database.password", "plain");
      assertError(validate(stack, c), "database.user", "REPLICATION");

      String topic = stack.kafka().uniqueTopicName("validate-three");
      stack.kafka().createTopic(topic, 3);
      c = f.config();
      c.put("topic", topic);
      assertError(validate(stack, c), "topic", "3 partitions");

      c = f.config();
      c.put("slot.name", "Bad-Slot");
      assertError(validate(stack, c), "slot.name", "lower-case");
      c = f.config();
      c.remove("database.hostname");
      assertError(validate(stack, c), "database.hostname", "Missing required");
    }
  }
}
