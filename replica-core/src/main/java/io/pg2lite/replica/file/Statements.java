package io.pg2lite.replica.file;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.HashMap;
import java.util.Map;
import org.sqlite.SQLiteConnection;
import org.sqlite.SQLiteLimits;

/**
 * The prepared statements of the replica's connection, cached by their SQL: row writes reuse a
 * handful of statements for millions of rows.
 *
 * <p>Invariant: a statement is prepared against the schema of its time, so {@link #closeAll}
 * runs before every schema change (and after a rollback that may undo one). A statement that
 * outlived a DDL would fail, or worse, write through an old column list. Whoever keeps a
 * statement beyond one call (the upsert batch) must forget it at the same moment.
 */
public final class Statements {
  private final Connection c;
  private final Map<String, PreparedStatement> cache = new HashMap<>();

  public Statements(Connection c) {
    this.c = c;
  }

  /** The statement for {@code sql}, prepared on first use. */
  public PreparedStatement prepare(String sql) throws SQLException {
    PreparedStatement ps = cache.get(sql);
    if (ps == null) {
      ps = c.prepareStatement(sql);
      cache.put(sql, ps);
    }
    return ps;
  }

  /** Runs a one-off statement (DDL, a whole-table delete), not worth caching. */
  public void execute(String sql) throws SQLException {
    try (Statement s = c.createStatement()) {
      s.execute(sql);
    }
  }

  /**
   * The longest string or BLOB SQLite stores on this connection ({@code SQLITE_LIMIT_LENGTH}),
   * read from SQLite each time: it is the build's maximum unless lowered ({@link #limitLength}).
   */
  public long lengthLimit() throws SQLException {
    return c.unwrap(SQLiteConnection.class).getDatabase().limit(SQLiteLimits.SQLITE_LIMIT_LENGTH.getId(), -1);
  }

  /** Lowers the length limit (it cannot be raised past the build's): tests reach it without 1 GB values. */
  public void limitLength(int bytes) throws SQLException {
    c.unwrap(SQLiteConnection.class).getDatabase().limit(SQLiteLimits.SQLITE_LIMIT_LENGTH.getId(), bytes);
  }

  /** Closes and forgets every statement. */
  public void closeAll() throws SQLException {
    for (PreparedStatement ps : cache.values()) {
      ps.close();
    }
    cache.clear();
  }
}
