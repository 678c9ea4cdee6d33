package io.pg2lite.testkit.postgres;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pg2lite.protocol.watermark.Lsn;
import io.pg2lite.testkit.TestStack;
import io.pg2lite.testkit.TestStackExtension;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/** The embedded Postgres is a real server with logical replication: pgoutput changes are readable from a slot. */
@ExtendWith(TestStackExtension.class)
class PostgresSmokeIT {
  private final PostgresServer server;

  PostgresSmokeIT(TestStack stack) {
    this.server = stack.postgres();
  }

  @Test
  void isTheServerWeStartedWithLogicalReplication() throws SQLException {
    assertTrue(server.version().startsWith("PostgreSQL 17."), server.version());
    try (TestDatabase db = server.newDatabase("smoke")) {
      assertEquals(List.of("logical"), db.queryColumn("SHOW wal_level"));
    }
  }

  @Test
  void pgoutputChangesAreReadableFromASlot() throws SQLException {
    try (TestDatabase db = server.newDatabase("smoke")) {
      db.execute("CREATE TABLE item (id int PRIMARY KEY, name text)");
      db.createPublication("smoke_pub", "item");
      Lsn consistentPoint = db.createLogicalSlot("smoke_slot");
      assertTrue(consistentPoint.compareTo(Lsn.ZERO) > 0);
      db.execute("INSERT INTO item VALUES (1, 'one'), (2, 'two')", "UPDATE item SET name = 'uno' WHERE id = 1");

      List<Character> messageTypes = new ArrayList<>();
      try (Connection c = db.connect(); Statement s = c.createStatement();
          ResultSet rs = s.executeQuery("SELECT data FROM pg_logical_slot_peek_binary_changes('smoke_slot', NULL, NULL,"
              + " 'proto_version', '1', 'publication_names', 'smoke_pub')")) {
        while (rs.next()) {
          messageTypes.add((char) rs.getBytes(1)[0]);
        }
      }
      // Two transactions: BEGIN, RELATION, INSERT, INSERT, COMMIT, then BEGIN, UPDATE, COMMIT.
      assertEquals(List.of('B', 'R', 'I', 'I', 'C', 'B', 'U', 'C'), messageTypes);
      assertEquals(List.of("smoke_slot"), db.slots());
    }
  }

  @Test
  void closingADatabaseDropsItsSlotsEvenWhenActive() throws SQLException {
    String name;
    try (TestDatabase db = server.newDatabase("slots")) {
      name = db.name();
      db.createLogicalSlot("a_slot");
      db.createLogicalSlot("b_slot");
      assertEquals(List.of("a_slot", "b_slot"), db.slots());
    }
    try (Connection c = server.connect("postgres"); Statement s = c.createStatement();
        ResultSet rs = s.executeQuery("SELECT count(*) FROM pg_replication_slots WHERE database = '" + name + "'")) {
      rs.next();
      assertEquals(0, rs.getInt(1));
    }
    try (Connection c = server.connect("postgres"); Statement s = c.createStatement();
        ResultSet rs = s.executeQuery("SELECT 1 FROM pg_database WHERE datname = '" + name + "'")) {
      assertFalse(rs.next(), "database dropped");
    }
  }
}
