package io.pg2lite.source.postgres;

import static io.pg2lite.source.schema.Schemas.col;
import static io.pg2lite.source.schema.Schemas.index;
import static io.pg2lite.source.schema.Schemas.pk;
import static io.pg2lite.source.schema.Schemas.schema;
import static io.pg2lite.source.schema.Schemas.table;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pg2lite.source.config.ConfigProblem;
import io.pg2lite.source.config.SourceConfig;
import io.pg2lite.source.schema.PublishedSchema;
import java.sql.SQLException;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The pure parts of validate()'s Postgres checks: the key rule over a published schema, and SQLSTATEs to fields. */
class PostgresProbeTest {
  private static SourceConfig config(String policy) {
    Map<String, String> m = new HashMap<>(Map.of("database.hostname", "db", "database.dbname", "app",
        "database.user", "u", "topic", "changes", "kafka.bootstrap.servers", "k:9092"));
    if (policy != null) {
      m.put(SourceConfig.REPLICA_IDENTITY_CONFIG, policy);
    }
    return new SourceConfig(m);
  }

  private static final PublishedSchema SCHEMA = schema(
      table(1, "keyed", List.of(col("id", 1, "int4", true)), pk("keyed_pkey", "id")),
      table(2, "unique_not_null", List.of(col("id", 1, "int4", true)), index("unn_idx", true, "id")),
      table(3, "unique_nullable", List.of(col("id", 1, "int4", false)), index("un_idx", true, "id")),
      table(4, "keyless", List.of(col("v", 1, "text", false))));

  @Test
  void tablesWithoutAUsableKeyAreOneProblemOnThePublication() {
    List<ConfigProblem> p = PostgresProbe.keyProblems(config(null), SCHEMA);
    assertEquals(List.of(new ConfigProblem(SourceConfig.PUBLICATION_CONFIG, "published tables without a primary key "
        + "or a unique index over NOT NULL columns: public.unique_nullable, public.keyless")), p);
  }

  @Test
  void underThePrimaryKeyPolicyAUniqueIndexIsNoKey() {
    List<ConfigProblem> p = PostgresProbe.keyProblems(config("primary-key"), SCHEMA);
    assertEquals(1, p.size());
    assertEquals("published tables without a primary key: public.unique_not_null, public.unique_nullable, "
        + "public.keyless", p.get(0).message());
  }

  @Test
  void keyedTablesAreNoProblem() {
    assertEquals(List.of(), PostgresProbe.keyProblems(config(null), schema(SCHEMA.tables().get(0))));
  }

  @Test
  void sqlStatesNameTheFieldToChange() {
    SourceConfig c = config(null);
    List<ConfigProblem> auth = PostgresProbe.connectionProblems(c, new SQLException("no", "28P01"));
    assertEquals(List.of(SourceConfig.USER_CONFIG, SourceConfig.PASSWORD_CONFIG),
        auth.stream().map(ConfigProblem::field).toList());
    assertTrue(auth.get(0).message().startsWith("authentication failed for user u"));
    assertEquals(List.of(new ConfigProblem(SourceConfig.DATABASE_CONFIG, "database app does not exist")),
        PostgresProbe.connectionProblems(c, new SQLException("no", "3D000")));
    ConfigProblem down = PostgresProbe.connectionProblems(c, new SQLException("refused", "08001")).get(0);
    assertEquals(SourceConfig.HOST_CONFIG, down.field());
    assertEquals("cannot connect to Postgres at db:5432: refused", down.message());
    ConfigProblem other = PostgresProbe.connectionProblems(c, new SQLException("permission denied", "42501")).get(0);
    assertEquals("Postgres at db:5432 refused the check: permission denied", other.message());
    assertFalse(PostgresProbe.connectionProblems(c, new SQLException("no state")).isEmpty());
  }
}
