package io.pg2lite.testkit.fuzz;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.locks.LockSupport;

/**
 * Runs a {@link Workload}'s actions in order on two Postgres sessions (connections in autocommit
 * mode; transactions are the workload's own BEGIN/COMMIT), one statement at a time, on the calling
 * thread. Restarts are delegated to the test, which owns the pipeline.
 *
 * <p>A statement that fails is recorded, not thrown: the workload goes on, so one generator
 * mistake does not hide what the rest finds. The generator aims at zero failures, and the test
 * prints them. Each session has a {@code lock_timeout}, so a statement that would wait for the
 * other session (a generator mistake) fails instead of hanging the single-threaded run.
 */
public final class WorkloadRunner implements AutoCloseable {
  /** Restarts part of the pipeline and returns once it runs again. */
  @FunctionalInterface
  public interface Restarter {
    void restart(Action.RestartKind kind) throws Exception;
  }

  private final Connection[] sessions = new Connection[2];
  private final Restarter restarter;
  private final List<String> failures = new ArrayList<>();
  private int statements;
  private int restarts;

  public WorkloadRunner(String jdbcUrl, String user, String password, Restarter restarter) throws SQLException {
    this.restarter = restarter;
    for (int i = 0; i < sessions.length; i++) {
      sessions[i] = DriverManager.getConnection(jdbcUrl, user, password);
      try (Statement s = sessions[i].createStatement()) {
        s.execute("SET TimeZone = 'UTC'");
        s.execute("SET lock_timeout = '30s'");
        s.execute("SET application_name = 'pg2lite-fuzz-s" + i + "'");
      }
    }
  }

  /** Runs {@code actions}; failed statements are kept in {@link #failures()}. */
  public void run(List<Action> actions) throws Exception {
    for (Action a : actions) {
      if (a instanceof Action.Sql s) {
        statements++;
        try (Statement st = sessions[s.session()].createStatement()) {
          st.execute(s.sql());
        } catch (SQLException e) {
          failures.add("[s" + s.session() + "] " + abbreviate(s.sql()) + ": " + e.getMessage());
        }
      } else if (a instanceof Action.Restart r) {
        restarts++;
        restarter.restart(r.kind());
      } else if (a instanceof Action.Pause p) {
        LockSupport.parkNanos(p.millis() * 1_000_000L);
      }
    }
  }

  /**
   * Commits the next value of the workload's marker row and returns it: once a replica shows
   * this value, it has applied every transaction the workload committed before.
   */
  public long bumpMarker(String markerTable) throws SQLException {
    try (Statement s = sessions[0].createStatement();
        ResultSet rs = s.executeQuery("UPDATE " + markerTable + " SET n = n + 1 WHERE id = 1 RETURNING n")) {
      rs.next();
      return rs.getLong(1);
    }
  }

  /** Statements that failed, with the error; empty when the workload ran as generated. */
  public List<String> failures() {
    return List.copyOf(failures);
  }

  public int statements() {
    return statements;
  }

  public int restarts() {
    return restarts;
  }

  private static String abbreviate(String sql) {
    return sql.length() <= 300 ? sql : sql.substring(0, 300) + "…";
  }

  @Override
  public void close() throws SQLException {
    SQLException first = null;
    for (Connection c : sessions) {
      try {
        if (c != null) {
          c.close();
        }
      } catch (SQLException e) {
        first = first == null ? e : first;
      }
    }
    if (first != null) {
      throw first;
    }
  }
}
