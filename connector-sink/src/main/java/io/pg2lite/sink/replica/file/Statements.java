package io.pg2lite.sink.replica.file;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.HashMap;
import java.util.Map;

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

  /** Closes and forgets every statement. */
  public void closeAll() throws SQLException {
    for (PreparedStatement ps : cache.values()) {
      ps.close();
    }
    cache.clear();
  }
}
