package io.pg2lite.sink.replica;

import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;

/**
 * One SQLite replica file and its single writing connection.
 *
 * <p>Transactions: the applier opens one SQLite transaction ({@code BEGIN IMMEDIATE}, so a
 * concurrent writer fails fast instead of deadlocking) and runs each upstream transaction in a
 * savepoint inside it, so several small upstream transactions can share one SQLite commit while
 * a {@code rollback} still discards exactly one. Invariant: the state row is written in the same
 * SQLite transaction as the data it describes; readers in WAL mode see both or neither.
 */
public final class ReplicaFile implements AutoCloseable {
  static final String STATE = "_pg2lite.state";
  static final String COLUMNS = "_pg2lite.columns";
  static final String TABLES = "_pg2lite.tables";
  static final String CHANGES = "_pg2lite.changes";

  private final Connection c;
  private boolean inTransaction;

  private ReplicaFile(Connection c) {
    this.c = c;
  }

  /** Opens (creating if needed) the replica at {@code path}. */
  public static ReplicaFile open(Path path, String journalMode, String synchronous, int busyTimeoutMs)
      throws SQLException {
    Connection c = DriverManager.getConnection("jdbc:sqlite:" + path.toAbsolutePath());
    try (Statement s = c.createStatement()) {
      // The busy timeout first: switching the journal mode needs a lock another process may hold.
      s.execute("PRAGMA busy_timeout=" + busyTimeoutMs);
      s.execute("PRAGMA journal_mode=" + journalMode);
      s.execute("PRAGMA synchronous=" + synchronous);
      s.execute("PRAGMA foreign_keys=OFF");
      // 64 MB page cache (default 2 MB): index pages of large tables stay in memory during apply.
      s.execute("PRAGMA cache_size=-65536");
      s.execute("CREATE TABLE IF NOT EXISTS " + SqlNames.quote(STATE) + " (lock INTEGER PRIMARY KEY CHECK (lock = 1),"
          + " replica_version TEXT, watermark TEXT, topic TEXT, partition INTEGER, kafka_offset INTEGER,"
          + " log_seq INTEGER)");
      addLogSeqColumn(s);
      s.execute("CREATE TABLE IF NOT EXISTS " + SqlNames.quote(TABLES) + " (table_name TEXT PRIMARY KEY,"
          + " upstream_schema TEXT NOT NULL, upstream_name TEXT NOT NULL, row_key TEXT NOT NULL,"
          + " upstream_metadata TEXT, min_row_version TEXT NOT NULL DEFAULT '00')");
      s.execute("CREATE TABLE IF NOT EXISTS " + SqlNames.quote(COLUMNS) + " (table_name TEXT NOT NULL,"
          + " column_name TEXT NOT NULL, pos INTEGER NOT NULL, upstream_type TEXT NOT NULL, storage TEXT NOT NULL,"
          + " is_not_null INTEGER, character_max_length INTEGER, backfill TEXT,"
          + " PRIMARY KEY (table_name, column_name))");
      s.execute("CREATE TABLE IF NOT EXISTS " + SqlNames.quote(CHANGES) + " (table_name TEXT NOT NULL,"
          + " row_key TEXT NOT NULL, op TEXT NOT NULL, state_version TEXT NOT NULL,"
          + " column_versions TEXT NOT NULL DEFAULT '{}', PRIMARY KEY (table_name, row_key))");
    } catch (SQLException e) {
      c.close();
      throw e;
    }
    c.setAutoCommit(true);
    return new ReplicaFile(c);
  }

  /** A replica created before sequence numbers gets the column (null: no number known yet). */
  private static void addLogSeqColumn(Statement s) throws SQLException {
    try (ResultSet rs = s.executeQuery("SELECT 1 FROM pragma_table_info('" + STATE + "') WHERE name = 'log_seq'")) {
      if (rs.next()) {
        return;
      }
    }
    s.execute("ALTER TABLE " + SqlNames.quote(STATE) + " ADD COLUMN log_seq INTEGER");
  }

  /**
   * Caps the file at about {@code bytes} ({@code PRAGMA max_page_count}; 0 = no cap), so a
   * replica cannot fill a disk it shares: a write past it fails with SQLITE_FULL, a permanent
   * fault. The cap lives in this connection only: it is set on every open.
   */
  public void limitSize(long bytes) throws SQLException {
    if (bytes <= 0) {
      return;
    }
    try (Statement s = c.createStatement(); ResultSet rs = s.executeQuery("PRAGMA page_size")) {
      rs.next();
      long pages = Math.max(1, bytes / rs.getLong(1));
      s.execute("PRAGMA max_page_count = " + pages);
    }
  }

  Connection connection() {
    return c;
  }

  public ReplicaState state() throws SQLException {
    try (Statement s = c.createStatement(); ResultSet rs = s.executeQuery("SELECT replica_version, watermark, topic,"
        + " partition, kafka_offset, log_seq FROM " + SqlNames.quote(STATE) + " WHERE lock = 1")) {
      if (!rs.next()) {
        return ReplicaState.EMPTY;
      }
      long seq = rs.getLong(6);
      Long logSeq = rs.wasNull() ? null : seq;
      return new ReplicaState(rs.getString(1), rs.getString(2), rs.getString(3), rs.getInt(4), rs.getLong(5), logSeq);
    }
  }

  /** Writes the state row; must run inside the transaction whose data it describes. */
  public void writeState(ReplicaState state) throws SQLException {
    requireTransaction();
    try (PreparedStatement ps = c.prepareStatement("INSERT OR REPLACE INTO " + SqlNames.quote(STATE)
        + " (lock, replica_version, watermark, topic, partition, kafka_offset, log_seq) VALUES (1, ?, ?, ?, ?, ?, ?)")) {
      ps.setString(1, state.replicaVersion());
      ps.setString(2, state.watermark());
      ps.setString(3, state.topic());
      ps.setInt(4, state.partition());
      ps.setLong(5, state.offset());
      if (state.seq() == null) {
        ps.setNull(6, java.sql.Types.INTEGER);
      } else {
        ps.setLong(6, state.seq());
      }
      ps.executeUpdate();
    }
  }

  public boolean inTransaction() {
    return inTransaction;
  }

  /** Opens the SQLite transaction if none is open. */
  public void beginIfNeeded() throws SQLException {
    if (!inTransaction) {
      try (Statement s = c.createStatement()) {
        s.execute("BEGIN IMMEDIATE");
      }
      inTransaction = true;
    }
  }

  /** Starts one upstream transaction inside the SQLite transaction. */
  public void savepoint() throws SQLException {
    requireTransaction();
    try (Statement s = c.createStatement()) {
      s.execute("SAVEPOINT upstream_tx");
    }
  }

  /** Keeps the upstream transaction's changes (they commit with the SQLite transaction). */
  public void releaseSavepoint() throws SQLException {
    try (Statement s = c.createStatement()) {
      s.execute("RELEASE upstream_tx");
    }
  }

  /** Discards the upstream transaction's changes, keeping earlier ones of the SQLite transaction. */
  public void rollbackToSavepoint() throws SQLException {
    try (Statement s = c.createStatement()) {
      s.execute("ROLLBACK TO upstream_tx");
      s.execute("RELEASE upstream_tx");
    }
  }

  public void commit() throws SQLException {
    if (inTransaction) {
      try (Statement s = c.createStatement()) {
        s.execute("COMMIT");
      }
      inTransaction = false;
    }
  }

  /** Discards everything since the last commit. */
  public void rollback() throws SQLException {
    if (inTransaction) {
      try (Statement s = c.createStatement()) {
        s.execute("ROLLBACK");
      } finally {
        inTransaction = false;
      }
    }
  }

  private void requireTransaction() {
    if (!inTransaction) {
      throw new IllegalStateException("no SQLite transaction open");
    }
  }

  @Override
  public void close() throws SQLException {
    try {
      rollback();
    } finally {
      c.close();
    }
  }
}
