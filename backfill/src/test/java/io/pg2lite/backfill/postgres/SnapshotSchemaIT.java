package io.pg2lite.backfill.postgres;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pg2lite.backfill.state.BackfillRequest;
import io.pg2lite.backfill.state.SchemaIncompatibilityException;
import io.pg2lite.protocol.schema.BackfillId;
import io.pg2lite.testkit.TestStack;
import io.pg2lite.testkit.TestStackExtension;
import io.pg2lite.testkit.postgres.TestDatabase;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * A table rewritten after the copy's snapshot reads as empty in that snapshot (rewrites are not
 * MVCC-safe): the copy must refuse it and retry, never complete with no rows (fuzz seed 4004).
 */
@ExtendWith(TestStackExtension.class)
class SnapshotSchemaIT {
  @Test
  void aTableRewrittenAfterTheSnapshotIsRefusedNotReadAsEmpty(TestStack stack) throws Exception {
    TestDatabase db = stack.postgres().newDatabase("snap_rewrite");
    db.execute("CREATE TABLE t (id int PRIMARY KEY, a bytea, b float4)",
        "INSERT INTO t SELECT g, '\\x00'::bytea, g FROM generate_series(1, 10) g");
    BackfillRequest copyA = CopyRequests.of(db, "t", Map.of("id", 1), Map.of("a", new BackfillId(2)));
    try (Connection exporter = db.connect(); Connection copy = db.connect(); Connection ddl = db.connect()) {
      String snapshot = snapshot(exporter);
      try (Statement s = ddl.createStatement()) {
        s.execute("ALTER TABLE t ALTER COLUMN b TYPE text USING b::text"); // rewrites t; column a unchanged
      }
      importSnapshot(copy, snapshot);
      try (Statement s = copy.createStatement(); ResultSet rs = s.executeQuery("SELECT count(*) FROM t")) {
        rs.next();
        assertEquals(0, rs.getLong(1), "the premise: the rewritten table is empty to the older snapshot");
      }
      SchemaIncompatibilityException e = assertThrows(SchemaIncompatibilityException.class,
          () -> SnapshotSchema.validate(copy, copyA));
      assertTrue(e.getMessage().contains("rewritten"), e.getMessage());
      copy.rollback();
      try (Connection later = db.connect()) {
        importSnapshot(copy, snapshot(later));
        assertEquals(2, SnapshotSchema.validate(copy, copyA).size(), "a snapshot after the rewrite is copied");
        copy.rollback();
      }
    }
  }

  private static String snapshot(Connection exporter) throws Exception {
    exporter.setAutoCommit(false);
    try (Statement s = exporter.createStatement()) {
      s.execute("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ");
      try (ResultSet rs = s.executeQuery("SELECT pg_export_snapshot()")) {
        rs.next();
        return rs.getString(1);
      }
    }
  }

  private static void importSnapshot(Connection c, String name) throws Exception {
    c.setAutoCommit(false);
    try (Statement s = c.createStatement()) {
      s.execute("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ, READ ONLY");
      s.execute("SET TRANSACTION SNAPSHOT '" + name + "'");
    }
  }
}
