package io.pg2lite.backfill.postgres;

import io.pg2lite.backfill.copy.TableCopy;
import io.pg2lite.backfill.copy.TableCopySource;
import io.pg2lite.backfill.state.BackfillRequest;
import io.pg2lite.backfill.state.SchemaIncompatibilityException;
import io.pg2lite.protocol.schema.QualifiedName;
import io.pg2lite.protocol.value.TextForm;
import io.pg2lite.protocol.watermark.Lsn;
import io.pg2lite.protocol.watermark.Watermark;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Map;
import java.util.concurrent.ThreadLocalRandom;
import java.util.function.LongSupplier;
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
 *
 * <p>Copies share a snapshot ({@link SharedSnapshot}) when the caller allows it and the snapshot is
 * young: small tables then cost their queries, not a snapshot each. Thread-safe: copies are opened
 * on the backfill's opener thread and closed on the source's.
 */
public final class PostgresTableCopySource implements TableCopySource {
  public static final String MARKER_PREFIX = "pg2lite.backfill";
  private static final Logger LOG = LoggerFactory.getLogger(PostgresTableCopySource.class);

  private final PostgresConnector postgres;
  private final String slotPrefix;
  private final int fetchRows;
  private final LongSupplier clock;
  private SharedSnapshot shared;

  public PostgresTableCopySource(PostgresConnector postgres, String slotPrefix, int fetchRows) {
    this(postgres, slotPrefix, fetchRows, System::currentTimeMillis);
  }

  PostgresTableCopySource(PostgresConnector postgres, String slotPrefix, int fetchRows, LongSupplier clock) {
    this.postgres = postgres;
    this.slotPrefix = slotPrefix;
    this.fetchRows = fetchRows;
    this.clock = clock;
  }

  @Override
  public TableCopy open(BackfillRequest request) throws SQLException {
    return open(request, false);
  }

  @Override
  public synchronized TableCopy open(BackfillRequest request, boolean mayShareSnapshot) throws SQLException {
    if (!mayShareSnapshot || shared == null || !shared.usable() || (shared.hasCopies() && large(shared, request))) {
      release();
      shared = takeSnapshot();
    }
    SharedSnapshot snapshot = shared;
    try {
      snapshot.copyOpened();
      return PostgresTableCopy.open(snapshot, request, snapshot.rowFilter(request.table()), fetchRows);
    } catch (SQLException | RuntimeException e) {
      release(); // a failed statement aborted the snapshot's transaction
      if (e instanceof SQLException sql && ("42P01".equals(sql.getSQLState()) || "42703".equals(sql.getSQLState()))) {
        throw new SchemaIncompatibilityException("table " + request.key() + " changed under the snapshot: "
            + e.getMessage(), e);
      }
      throw e;
    }
  }

  /**
   * Whether the table is too large to join a snapshot that other copies read (their locks would be
   * held as long as it is read). Postgres' statistics are the cheap guess: a table never vacuumed
   * nor analyzed has none, and a new table is small or soon analyzed.
   */
  private static boolean large(SharedSnapshot snapshot, BackfillRequest request) throws SQLException {
    return request.metadata() != null
        && snapshot.tableBytes(request.metadata().relationOid()) > SharedSnapshot.MAX_SHARED_TABLE_BYTES;
  }

  /** Ends the shared snapshot if it is old enough not to be shared any more (between copies). */
  @Override
  public synchronized void releaseIfOld() {
    if (shared != null && shared.endIfOld()) {
      shared = null;
    }
  }

  /** Ends the shared snapshot, if any: no copy will read it again. */
  @Override
  public synchronized void release() {
    if (shared != null) {
      shared.end();
      shared = null;
    }
  }

  private SharedSnapshot takeSnapshot() throws SQLException {
    return take(postgres, slotPrefix + "_bf_", clock);
  }

  /**
   * A new snapshot at an exact LSN (a temporary slot named {@code slotStem} and a number), with
   * the publication's row filters, followed by the marker message; the verification's snapshots
   * are taken the same way.
   */
  static SharedSnapshot take(PostgresConnector postgres, String slotStem, LongSupplier clock) throws SQLException {
    Connection snapshot = postgres.connect();
    try {
      Watermark watermark;
      try (Connection walsender = postgres.connectForReplication()) {
        String slot = slotStem + System.currentTimeMillis() + "_" + ThreadLocalRandom.current().nextInt(1000);
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
        LOG.debug("Snapshot {} at {}", snapshotName, consistentPoint);
      }
      Map<QualifiedName, String> filters;
      try (Connection c = postgres.connect()) {
        emitMarker(c);
        filters = SharedSnapshot.rowFilters(c, postgres.publication());
      }
      return new SharedSnapshot(snapshot, watermark, filters, clock);
    } catch (SQLException | RuntimeException e) {
      closeQuietly(snapshot);
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

  private static void emitMarker(Connection c) throws SQLException {
    try (PreparedStatement ps = c.prepareStatement("SELECT pg_logical_emit_message(true, ?, '')")) {
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
