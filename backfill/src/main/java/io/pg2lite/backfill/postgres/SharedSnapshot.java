package io.pg2lite.backfill.postgres;

import io.pg2lite.protocol.schema.QualifiedName;
import io.pg2lite.protocol.watermark.Watermark;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.HashMap;
import java.util.Map;
import java.util.function.LongSupplier;

/**
 * One snapshot at an exact LSN that copies read in turn: its REPEATABLE READ transaction, its
 * watermark, and the publication's row filters as they were when it was taken. Taking a snapshot
 * costs a replication slot, three connections and a logical message (about 140 ms on an idle
 * 2-core machine); a table of 20 rows costs a few milliseconds to read. So small tables share one
 * (issue 33: 1,000 tables copied at 133 ms each, nearly all of it the snapshot).
 *
 * <p>Which copies may share it is the caller's rule (a copy may read a snapshot taken after its
 * request was required, never one before: BackfillStream). This class bounds how long it lives:
 * until it is {@link #MAX_AGE_MS} old and a copy has read its last row, or {@link #MAX_COPIES}
 * copies have been opened on it, because its transaction holds an ACCESS SHARE lock on every table
 * it read (DDL on them waits) and an xmin (vacuum waits).
 */
final class SharedSnapshot {
  /** How long a snapshot may be shared: the longest a DDL on a copied small table waits for it. */
  static final long MAX_AGE_MS = 2_000;
  /**
   * How many copies one snapshot serves at most: each holds a lock (and its indexes' locks) until
   * it ends, from the server's shared lock table (64 per connection by default).
   */
  static final int MAX_COPIES = 100;
  /**
   * The largest table (its file, {@code pg_relation_size}) that joins a snapshot other copies read:
   * a longer copy would hold their tables' locks as long as it runs, so it gets a snapshot of its own.
   */
  static final long MAX_SHARED_TABLE_BYTES = 8L << 20;

  private final Connection connection;
  private final Watermark watermark;
  private final Map<QualifiedName, String> rowFilters;
  private final long takenAtMillis;
  private final LongSupplier clock;
  private int copies;
  private boolean ended;

  SharedSnapshot(Connection connection, Watermark watermark, Map<QualifiedName, String> rowFilters,
      LongSupplier clock) {
    this.connection = connection;
    this.watermark = watermark;
    this.rowFilters = rowFilters;
    this.clock = clock;
    this.takenAtMillis = clock.getAsLong();
  }

  Connection connection() {
    return connection;
  }

  Watermark watermark() {
    return watermark;
  }

  /** The row filter of {@code table} in the publication when the snapshot was taken, or null. */
  String rowFilter(QualifiedName table) {
    return rowFilters.get(table);
  }

  /**
   * The size of a table's file, read in the snapshot's transaction without locking the table
   * ({@code pg_relation_size} would lock it): the blocks of its relation fork, from the catalog's
   * {@code relpages} when the table has been vacuumed or analyzed, else -1.
   */
  long tableBytes(long relationOid) throws SQLException {
    try (PreparedStatement ps = connection.prepareStatement("SELECT CASE WHEN relpages > 0 THEN relpages::int8 * "
        + "current_setting('block_size')::int8 ELSE -1 END FROM pg_catalog.pg_class WHERE oid = ?")) {
      ps.setLong(1, relationOid);
      try (ResultSet rs = ps.executeQuery()) {
        return rs.next() ? rs.getLong(1) : -1;
      }
    }
  }

  /** Whether another copy may be opened on it. */
  synchronized boolean usable() {
    return !ended && copies < MAX_COPIES && clock.getAsLong() - takenAtMillis < MAX_AGE_MS;
  }

  /**
   * Counts a copy opened on it, and sets how long its table's lock may be waited for. The first
   * copy waits as long as it takes (its transaction holds nothing). A later one holds the locks of
   * the tables read before it, so waiting could close a cycle with a DDL on several tables (our
   * transaction holding b and waiting for c, {@code TRUNCATE c, b} holding c and waiting for b),
   * which Postgres would break after a second by failing one of the two, possibly the
   * application's: it waits {@link #SHARED_LOCK_WAIT} at most, then fails and its table is copied
   * again from a snapshot of its own.
   */
  synchronized void copyOpened() throws SQLException {
    try (java.sql.Statement s = connection.createStatement()) {
      s.execute("SET LOCAL lock_timeout = " + (copies == 0 ? "0" : "'" + SHARED_LOCK_WAIT + "'"));
    }
    copies++;
  }

  /** How long a copy that is not a snapshot's first waits for its table's lock. */
  static final String SHARED_LOCK_WAIT = "100ms";

  /** A copy read its last row (or was closed): an old snapshot ends now rather than at the next open. */
  synchronized void copyClosed() {
    if (clock.getAsLong() - takenAtMillis >= MAX_AGE_MS) {
      end();
    }
  }

  /** Whether copies were opened on it: a later one would hold their tables' locks. */
  synchronized boolean hasCopies() {
    return copies > 0;
  }

  /** Ends it if it is {@link #MAX_AGE_MS} old; true when it has ended. */
  synchronized boolean endIfOld() {
    if (clock.getAsLong() - takenAtMillis >= MAX_AGE_MS) {
      end();
    }
    return ended;
  }

  /** Ends the transaction (releasing its locks) and the connection; idempotent. */
  synchronized void end() {
    if (ended) {
      return;
    }
    ended = true;
    try {
      connection.rollback();
    } catch (SQLException ignored) {
      // closed next either way
    }
    PostgresTableCopySource.closeQuietly(connection);
  }

  /**
   * The publication's row filters (Postgres 15+), read on {@code c}, a connection outside any
   * snapshot's transaction: {@code pg_publication_tables} takes (and releases) ACCESS SHARE on
   * every table of the publication, and asked from a transaction that already holds a copied
   * table's lock it could wait on another table while holding that one, and deadlock with a
   * TRUNCATE or ALTER of both (ValuesIT, TRUNCATE a, b during the copy of b).
   */
  static Map<QualifiedName, String> rowFilters(Connection c, String publication) throws SQLException {
    Map<QualifiedName, String> out = new HashMap<>();
    if (c.getMetaData().getDatabaseMajorVersion() < 15) {
      return out;
    }
    try (PreparedStatement ps = c.prepareStatement("SELECT schemaname, tablename, rowfilter "
        + "FROM pg_catalog.pg_publication_tables WHERE pubname = ? AND rowfilter IS NOT NULL")) {
      ps.setString(1, publication);
      try (ResultSet rs = ps.executeQuery()) {
        while (rs.next()) {
          out.put(new QualifiedName(rs.getString(1), rs.getString(2)), "(" + rs.getString(3) + ")");
        }
      }
    }
    return out;
  }
}
