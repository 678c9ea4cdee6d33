package io.pg2lite.source.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pg2lite.protocol.watermark.Lsn;
import io.pg2lite.source.postgres.CreatedSlot;
import io.pg2lite.source.postgres.PostgresCatalog;
import io.pg2lite.source.schema.PublishedSchema;
import io.pg2lite.testkit.TestStack;
import io.pg2lite.testkit.TestStackExtension;
import io.pg2lite.testkit.postgres.PostgresServer;
import io.pg2lite.testkit.postgres.TestDatabase;
import java.sql.Connection;
import java.sql.DriverManager;
import java.util.List;
import java.util.Properties;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Issue 35 (found by FuzzIT's SLOT_LOSS, seed 3810 on Postgres 15): a DDL committed just after a
 * new slot's consistent point was read into the first schema and reported again by the stream.
 * The schema of a new slot is read in the snapshot exported with it, so DDL after the consistent
 * point is not in it, however soon it commits.
 */
@ExtendWith(TestStackExtension.class)
class CreatedSlotIT {
  @Test
  void theSchemaReadInTheSlotsSnapshotHoldsNoDdlCommittedAfterItsConsistentPoint(TestStack stack) throws Exception {
    PostgresServer server = stack.postgres();
    try (TestDatabase db = server.newDatabase("created_slot")) {
      db.execute("CREATE TABLE t (id int PRIMARY KEY, a text)", "CREATE PUBLICATION created_slot_pub FOR TABLE t");
      try (CreatedSlot slot = CreatedSlot.create(extra -> {
        Properties p = new Properties();
        p.setProperty("user", server.user());
        p.setProperty("password", server.password());
        p.putAll(extra);
        return DriverManager.getConnection(db.jdbcUrl(), p);
      }, "created_slot_s")) {
        assertEquals(List.of("false"), db.queryColumn("SELECT active::text FROM pg_replication_slots WHERE slot_name = "
            + "'created_slot_s'"), "a replication session may open on it at once: the walsender let go of it");
        db.execute("ALTER TABLE t ADD COLUMN b int", "ALTER TABLE t RENAME COLUMN a TO a2");
        Lsn afterDdl = Lsn.parse(db.queryColumn("SELECT pg_current_wal_lsn()::text").get(0));
        assertTrue(afterDdl.compareTo(slot.consistentPoint()) > 0, afterDdl + " after " + slot.consistentPoint());

        assertEquals(List.of("id", "a"), columns(new PostgresCatalog(slot.snapshot()), "the slot's snapshot"));
        try (Connection now = db.connect()) {
          assertEquals(List.of("id", "a2", "b"), columns(new PostgresCatalog(now), "a connection of its own"));
        }
      }
      assertEquals(List.of("created_slot_s"), db.slots(), "the slot outlives its snapshot and walsender");
      db.dropSlot("created_slot_s");
    }
  }

  private static List<String> columns(PostgresCatalog catalog, String where) throws Exception {
    PublishedSchema schema = catalog.publishedSchemaQueried("created_slot_pub");
    assertEquals(1, schema.tables().size(), where + ": " + schema);
    return schema.tables().get(0).columns().stream().map(PublishedSchema.Column::name).toList();
  }
}
