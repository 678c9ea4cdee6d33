package io.pg2lite.replica.file;

import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import org.sqlite.SQLiteConfig;

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
  /**
   * What a WAL keeps of its size once a checkpoint has emptied it ({@code journal_size_limit}).
   * Without a limit SQLite never shrinks the file: a burst applied while a reader held an old
   * snapshot (a long query, a snapshot's copy, a comparison) leaves a WAL as large as the burst on
   * the disk for good, room a full disk then lacks. 16 MiB is four times what the WAL grows between
   * two automatic checkpoints (1,000 pages of 4 KiB), so steady apply never truncates and regrows it.
   */
  static final long WAL_SIZE_LIMIT_BYTES = 16L << 20;
  private final Connection c;
  private boolean inTransaction;

  private ReplicaFile(Connection c) {
    this.c = c;
  }

  /**
   * The one way pg2lite connects to a replica file, for writing ({@link #open}) or for a look (a
   * snapshot's copy, a restore's check): the busy timeout is set as the connection opens, before
   * any statement, since even reading the journal mode may need a lock another process holds.
   */
  public static Connection connect(Path path, int busyTimeoutMs, boolean readOnly) throws SQLException {
    SQLiteConfig cfg = new SQLiteConfig();
    cfg.setBusyTimeout(busyTimeoutMs);
    cfg.setReadOnly(readOnly);
    return cfg.createConnection("jdbc:sqlite:" + path.toAbsolutePath());
  }

  /** Opens (creating if needed) the replica at {@code path}, as its one writer. */
  public static ReplicaFile open(Path path, String journalMode, String synchronous, int busyTimeoutMs)
      throws SQLException {
    Connection c = connect(path, busyTimeoutMs, false);
    try (Statement s = c.createStatement()) {
      s.execute("PRAGMA journal_mode=" + journalMode);
      s.execute("PRAGMA synchronous=" + synchronous);
      s.execute("PRAGMA foreign_keys=OFF");
      s.execute("PRAGMA journal_size_limit=" + WAL_SIZE_LIMIT_BYTES);
      // 64 MB page cache (default 2 MB): index pages of large tables stay in memory during apply.
      s.execute("PRAGMA cache_size=-65536");
      MetadataTables.create(s);
    } catch (SQLException e) {
      c.close();
      throw e;
    }
    c.setAutoCommit(true);
    return new ReplicaFile(c);
  }

  /**
   * Caps the file at about {@code bytes} ({@code PRAGMA max_page_count}; 0 = no cap), so a
   * replica cannot fill a disk it shares: a write past it fails with SQLITE_FULL, as on a full
   * disk ({@code replica.space.ReplicaFull}). The cap lives in this connection only: it is set on
   * every open.
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

  /**
   * Copies what the WAL holds into the main file ({@code PRAGMA wal_checkpoint}): {@code TRUNCATE}
   * waits (up to the busy timeout) for readers and empties the WAL; {@code PASSIVE} copies what no
   * reader still needs and never waits. Returns false when readers kept part of it in the WAL; a
   * no-op, true, outside WAL mode.
   */
  public boolean checkpoint(boolean truncate) throws SQLException {
    try (Statement s = c.createStatement();
        ResultSet rs = s.executeQuery("PRAGMA wal_checkpoint(" + (truncate ? "TRUNCATE" : "PASSIVE") + ")")) {
      return !rs.next() || (rs.getInt(1) == 0 && rs.getInt(2) == rs.getInt(3));
    }
  }

  /**
   * The file this connection has open ({@code PRAGMA database_list}): where another connection
   * finds the same data, even after the path it was opened by has been made to link elsewhere.
   */
  public Path path() throws SQLException {
    try (Statement s = c.createStatement(); ResultSet rs = s.executeQuery("SELECT file FROM pragma_database_list"
        + " WHERE name = 'main'")) {
      rs.next();
      return Path.of(rs.getString(1));
    }
  }

  /** Whether the file is in WAL mode (its readers then never block the writer). */
  public boolean wal() throws SQLException {
    try (Statement s = c.createStatement(); ResultSet rs = s.executeQuery("PRAGMA journal_mode")) {
      return rs.next() && "wal".equalsIgnoreCase(rs.getString(1));
    }
  }

  /** The one connection; every part of the replica writes through it. */
  public Connection connection() {
    return c;
  }

  /** The position the file holds (what a restart resumes from). */
  public ReplicaState state() throws SQLException {
    return StateTable.read(c);
  }

  /** Writes the state row; must run inside the transaction whose data it describes. */
  public void writeState(ReplicaState state) throws SQLException {
    requireTransaction();
    StateTable.write(c, state);
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
