package io.pg2lite.source.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pg2lite.protocol.message.DataChange;
import io.pg2lite.protocol.message.SchemaChange;
import io.pg2lite.testkit.TestStack;
import io.pg2lite.testkit.TestStackExtension;
import io.pg2lite.testkit.support.Await;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * A database whose pg2lite catalog objects are version 1 (the install.sql of the first release,
 * kept as a test resource) is upgraded in place when the source starts as a superuser: DDL keeps
 * flowing, and the schema is no longer recorded in Postgres (ADR 0028: in Kafka).
 */
@ExtendWith(TestStackExtension.class)
class CatalogUpgradeIT {
  private static final Duration WAIT = Duration.ofSeconds(90);

  @Test
  void aVersion1CatalogIsUpgradedAndItsDdlRecorded(TestStack stack) throws Exception {
    try (SourceFixture f = new SourceFixture(stack, "cat_upgrade")) {
      String v1;
      try (InputStream in = CatalogUpgradeIT.class.getResourceAsStream("install-v1.sql")) {
        v1 = new String(in.readAllBytes(), StandardCharsets.UTF_8);
      }
      f.db.execute(v1, "CREATE TABLE u (id int PRIMARY KEY, v text)", "CREATE PUBLICATION cat_upgrade_pub FOR TABLE u");
      assertEquals(List.of("1"), f.db.queryColumn("SELECT version::text FROM pg2lite.installed"));
      f.start();
      f.awaitEntries(3, WAIT);
      assertEquals(List.of(String.valueOf(io.pg2lite.source.postgres.CatalogInstaller.VERSION)),
          f.db.queryColumn("SELECT version::text FROM pg2lite.installed"));
      f.db.execute("ALTER TABLE u ADD COLUMN n int", "INSERT INTO u VALUES (1, 'a', 7)");
      Await.until("the add-column and the insert", WAIT, () -> {
        List<Object> applied = ReplayRule.appliedChanges(f.awaitEntries(1, Duration.ofMillis(300))).stream()
            .map(m -> (Object) m).toList();
        return applied.stream().anyMatch(m -> m instanceof SchemaChange.AddColumn)
            && applied.stream().anyMatch(m -> m instanceof DataChange.Insert);
      });
      assertEquals(List.of("false"), f.db.queryColumn(
          "SELECT (to_regprocedure('pg2lite.record_schema(text)') IS NOT NULL)::text"),
          "version 4 records no schema in Postgres");
      assertTrue(f.schemaHistory().stream().anyMatch(s -> s.contains("\"n\"")),
          "the schema after the ALTER is in the schema history topic");
    }
  }
}
