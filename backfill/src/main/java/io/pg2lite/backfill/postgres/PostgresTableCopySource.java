package io.pg2lite.backfill.postgres;

import io.pg2lite.backfill.copy.TableCopy;
import io.pg2lite.backfill.copy.TableCopySource;
import io.pg2lite.backfill.state.BackfillRequest;
import io.pg2lite.backfill.state.SchemaIncompatibilityException;
import io.pg2lite.protocol.value.TextForm;
import io.pg2lite.protocol.watermark.Lsn;
import io.pg2lite.protocol.watermark.Watermark;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.concurrent.ThreadLocalRandom;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Opens copies from a snapshot tied to an exact LSN: a TEMPORARY logical replication slot is
 * created with {@code EXPORT_SNAPSHOT} on a walsender connection (its consistent point is the
 * snapshot's LSN, the only way to get both together), a REPEATABLE READ transaction imports the
 * snapshot, and the walsender connection is closed, which drops the slot: nothing can be orphaned.
 *
 * <p>After the snapshot a transactional logical message ({@value #MARKER_PREFIX}) is committed,
 * so the main stream soon carries a commit at or after the snapshot's LSN even on an idle
 * database: that is what lets {@code backfill-completed} be written.
 */
public final class PostgresTableCopySource implements TableCopySource {
  public static final String MARKER_PREFIX = "pg2lite.backfill";
  private static final Logger LOG = LoggerFactory.getLogger(PostgresTableCopySource.class);

  private final PostgresConnector postgres;
  private final String slotPrefix;
  private final int fetchRows;

  public PostgresTableCopySource(PostgresConnector postgres, String slotPrefix, int fetchRows) {
    this.postgres = postgres;
    this.slotPrefix = slotPrefix;
    this.fetchRows = fetchRows;
  }

  @Override
  public TableCopy open(BackfillRequest request) throws SQLException {
    Connection snapshot = postgres.connect();
    try {
      Watermark watermark;
      try (Connection walsender = postgres.connectForReplication()) {
        String slot = slotPrefix + "_bf_" + System.currentTimeMillis() + "_" + ThreadLocalRandom.current().nextInt(1000);
        String snapshotName;
        Lsn consistentPoint;
        try (Statement s = walsender.createStatement();
            ResultSet rs = s.executeQuery("CREATE_REPLICATION_SLOT \"" + slot + "\" TEMPORARY LOGICAL pgoutput EXPORT_SNAPSHOT")) {
          rs.next();
          consistentPoint = Lsn.parse(rs.getString("consistent_point"));
          snapshotName = rs.getString("snapshot_name");
        }
        importSnapshot(snapshot, snapshotName);
        watermark = Watermark.fromLsn(consistentPoint);
        LOG.debug("Snapshot {} for {} at {}", snapshotName, request.key(), consistentPoint);
      }
      emitMarker();
      return PostgresTableCopy.open(snapshot, request, watermark, postgres.publication(), fetchRows);
    } catch (SQLException | RuntimeException e) {
      closeQuietly(snapshot);
      if (e instanceof SQLException sql && ("42P01".equals(sql.getSQLState()) || "42703".equals(sql.getSQLState()))) {
        throw new SchemaIncompatibilityException("table " + request.key() + " changed under the snapshot: "
            + e.getMessage(), e);
      }
      throw e;
    }
  }

  private static void importSnapshot(Connection c, String name) throws SQLException {
    c.setAutoCommit(false);
    try (Statement s = c.createStatement()) {
      s.execute("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ, READ ONLY");
      s.execute("SET TRANSACTION SNAPSHOT '" + name.replace("'", "''") + "'");
      for (String setting : TextForm.PRINTING_SETTINGS) {
        s.execute("SET LOCAL " + setting); // values print as the walsender prints them (ColumnReader)
      }
      // A copy is low priority: its count(*) must not take parallel workers (every core of a
      // small database host) away from the live workload and the walsender.
      s.execute("SET LOCAL max_parallel_workers_per_gather = 0");
    }
  }

  private void emitMarker() throws SQLException {
    try (Connection c = postgres.connect();
        PreparedStatement ps = c.prepareStatement("SELECT pg_logical_emit_message(true, ?, '')")) {
      ps.setString(1, MARKER_PREFIX);
      ps.execute();
    }
  }

  static void closeQuietly(Connection c) {
    try {
      c.close();
    } catch (SQLException e) {
      LOG.debug("closing a backfill connection", e);
    }
  }
}
