package io.pg2lite.source.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pg2lite.protocol.watermark.Lsn;
import io.pg2lite.source.config.SourceConfig;
import io.pg2lite.source.postgres.CreatedSlot;
import io.pg2lite.source.postgres.FailoverSlot;
import io.pg2lite.source.postgres.ServerRequirements;
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
      try (CreatedSlot slot = CreatedSlot.create(extra -> connect(server, db, extra), "created_slot_s")) {
        assertEquals(List.of("false"), db.queryColumn("SELECT active::text FROM pg_replication_slots WHERE slot_name = "
            + "'created_slot_s'"), "a replication session may open on it at once: the walsender let go of it");
        db.execute("ALTER TABLE t ADD COLUMN b int", "ALTER TABLE t RENAME COLUMN a TO a2");
        Lsn afterDdl = Lsn.parse(db.queryColumn("SELECT pg_current_wal_lsn()::text").get(0));
        assertTrue(afterDdl.compareTo(slot.consistentPoint()) > 0, afterDdl + " after " + slot.consistentPoint());

        assertEquals(List.of("id", "a"), columns(new PostgresCatalog(slot.snapshot()), "the slot's snapshot"));
        try (Connection now = db.connect()) {
          assertEquals(List.of("id", "a2", "b"), columns(new PostgresCatalog(now), "a connection of its own"));
          assertEquals(new PostgresCatalog(slot.snapshot()).membershipFingerprint("created_slot_pub"),
              new PostgresCatalog(now).membershipFingerprint("created_slot_pub"), "columns are not membership");
        }
      }
      assertEquals(List.of("created_slot_s"), db.slots(), "the slot outlives its snapshot and walsender");
      db.dropSlot("created_slot_s");
    }
  }

  /**
   * What the snapshot cannot hold: Postgres reads a publication's tables as of now, so a table
   * added in the snapshot's lifetime is in the schema read there. The membership digest, read
   * with plain SQL, tells the snapshot from now: the start-up then creates the slot again.
   */
  @Test
  void aMembershipChangeAfterTheConsistentPointShowsInTheDigestAndNotInTheSchemaRead(TestStack stack)
      throws Exception {
    PostgresServer server = stack.postgres();
    try (TestDatabase db = server.newDatabase("created_slot_m")) {
      db.execute("CREATE TABLE t (id int PRIMARY KEY)", "CREATE TABLE u (id int PRIMARY KEY)",
          "CREATE TABLE w (id int PRIMARY KEY)", "CREATE PUBLICATION created_slot_pub FOR TABLE t",
          "CREATE PUBLICATION all_pub FOR ALL TABLES");
      try (CreatedSlot slot = CreatedSlot.create(extra -> connect(server, db, extra), "created_slot_m")) {
        PostgresCatalog then = new PostgresCatalog(slot.snapshot());
        String pubThen = then.membershipFingerprint("created_slot_pub");
        String allThen = then.membershipFingerprint("all_pub");
        db.execute("ALTER PUBLICATION created_slot_pub ADD TABLE u", "DROP TABLE w");
        try (Connection c = db.connect()) {
          PostgresCatalog now = new PostgresCatalog(c);
          assertEquals(2, then.publishedSchemaQueried("created_slot_pub").tables().size(),
              "the snapshot's read sees the table added since: why the digest is needed");
          assertNotEquals(pubThen, now.membershipFingerprint("created_slot_pub"), "a table added to the publication");
          assertNotEquals(allThen, now.membershipFingerprint("all_pub"), "a table of FOR ALL TABLES dropped");
          assertEquals(pubThen, then.membershipFingerprint("created_slot_pub"), "the snapshot's digest is stable");
        }
      }
      db.dropSlot("created_slot_m");
    }
  }

  /**
   * Issue 27 (ADR 0036): on Postgres 17+ the source's slot is a failover slot, created so, and a
   * slot that exists without it (created by hand here) is made one at start by
   * {@link FailoverSlot#settle}, while {@code slot.failover=false} leaves it alone.
   */
  @Test
  void slotsAreFailoverSlotsCreatedSoOrAlteredAtStart(TestStack stack) throws Exception {
    PostgresServer server = stack.postgres();
    try (TestDatabase db = server.newDatabase("failover_slot")) {
      CreatedSlot.Connections connections = extra -> connect(server, db, extra);
      CreatedSlot.create(connections, "failover_created", true).close();
      db.createLogicalSlot("failover_by_hand");
      String failover = "SELECT slot_name || '=' || failover FROM pg_replication_slots WHERE slot_name LIKE 'failover_%' "
          + "ORDER BY 1";
      assertEquals(List.of("failover_by_hand=false", "failover_created=true"), db.queryColumn(failover));
      try (Connection c = db.connect()) {
        ServerRequirements.Facts facts = ServerRequirements.require(c);
        FailoverSlot.settle(config(server, db, "failover_by_hand", false), facts, new PostgresCatalog(c), connections);
        assertEquals(List.of("failover_by_hand=false", "failover_created=true"), db.queryColumn(failover),
            "slot.failover=false leaves the slot as it is");
        FailoverSlot.settle(config(server, db, "failover_by_hand", true), facts, new PostgresCatalog(c), connections);
        assertEquals(List.of("failover_by_hand=true", "failover_created=true"), db.queryColumn(failover));
      }
    }
  }

  /**
   * A server that does not take {@code FAILOVER} (Postgres 15 answers a syntax error, as a fork
   * or a restricted managed service might): the slot is created without it, with a WARN, rather
   * than the start failing for good.
   */
  @Test
  void aServerRefusingFailoverSlotsGetsAPlainSlot() throws Exception {
    try (PostgresServer pg15 = PostgresServer.start(15); TestDatabase db = pg15.newDatabase("failover_refused")) {
      try (CreatedSlot slot = CreatedSlot.create(extra -> connect(pg15, db, extra), "failover_refused", true)) {
        assertTrue(slot.consistentPoint() != null);
      }
      assertEquals(List.of("failover_refused"), db.slots(), "the slot exists, without failover (15 has none)");
      db.dropSlot("failover_refused");
    }
  }

  private static SourceConfig config(PostgresServer server, TestDatabase db, String slot, boolean failover) {
    return new SourceConfig(java.util.Map.of("database.hostname", server.host(), "database.port",
        String.valueOf(server.port()), "database.dbname", db.name(), "database.user", server.user(), "topic", "t",
        "kafka.bootstrap.servers", "k:1", "slot.name", slot, "slot.failover", String.valueOf(failover)));
  }

  private static Connection connect(PostgresServer server, TestDatabase db, java.util.Map<String, String> extra)
      throws java.sql.SQLException {
    Properties p = new Properties();
    p.setProperty("user", server.user());
    p.setProperty("password", server.password());
    p.putAll(extra);
    return DriverManager.getConnection(db.jdbcUrl(), p);
  }

  private static List<String> columns(PostgresCatalog catalog, String where) throws Exception {
    PublishedSchema schema = catalog.publishedSchemaQueried("created_slot_pub");
    assertEquals(1, schema.tables().size(), where + ": " + schema);
    return schema.tables().get(0).columns().stream().map(PublishedSchema.Column::name).toList();
  }
}
