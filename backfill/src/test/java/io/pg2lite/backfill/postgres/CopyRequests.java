package io.pg2lite.backfill.postgres;

import io.pg2lite.backfill.state.BackfillRequest;
import io.pg2lite.protocol.schema.BackfillId;
import io.pg2lite.protocol.schema.QualifiedName;
import io.pg2lite.protocol.schema.TableMetadata;
import io.pg2lite.testkit.postgres.TestDatabase;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.util.Map;

/** Backfill requests for tables of a test database, with the oids the copy validates. */
final class CopyRequests {
  private CopyRequests() {}

  /** A request to copy {@code columns} of {@code public.<table>}, keyed by {@code rowKey}. */
  static BackfillRequest of(TestDatabase db, String table, Map<String, Integer> rowKey,
      Map<String, BackfillId> columns) throws Exception {
    try (Connection c = db.connect();
        PreparedStatement ps = c.prepareStatement("SELECT c.oid, c.relnamespace FROM pg_catalog.pg_class c "
            + "JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace WHERE n.nspname = 'public' AND c.relname = ?")) {
      ps.setString(1, table);
      try (ResultSet rs = ps.executeQuery()) {
        rs.next();
        return new BackfillRequest(new QualifiedName("public", table),
            new TableMetadata(rs.getLong(2), rs.getLong(1), rowKey), columns);
      }
    }
  }
}
