package io.pg2lite.backfill.state;

import io.pg2lite.connect.failure.Failures;
import java.sql.SQLException;
import java.util.Set;

/**
 * Which failures of a backfill copy are retried (the copy starts again later, from a new
 * snapshot) and which stop the source task.
 *
 * <p>Retried: every transient fault ({@link Failures}: a dropped connection, Postgres restarting);
 * the copy's own "the table moved under the snapshot" signals ({@link SchemaIncompatibilityException},
 * {@link MissingRowKeyException}); and any other error Postgres reports, because a DDL racing the
 * copy makes Postgres fail it in many ways (undefined table or column, a cached plan whose result
 * type changed, a lock it cannot get) and the schema change that caused it cancels or restarts
 * the backfill anyway.
 *
 * <p>Stops the task: an error Postgres reports that no retry can cure (authentication, a missing
 * privilege, a database that does not exist: the operator must act, and a backfill that retried
 * forever would leave the replica incomplete while looking healthy), and anything that is not a
 * database error: a NullPointerException or an IllegalStateException is a bug in pg2lite, and
 * retrying a bug only hides it.
 */
public final class CopyFailures {
  /** SQLSTATE classes and codes an operator must fix: invalid authorization, privilege, database. */
  private static final Set<String> PERMANENT_CLASSES = Set.of("28", "3D");
  private static final Set<String> PERMANENT_STATES = Set.of("42501");

  private CopyFailures() {}

  /** True when the copy that failed with {@code failure} should be retried later. */
  public static boolean retriable(Throwable failure) {
    if (Failures.isTransient(failure)) {
      return true;
    }
    for (Throwable t = failure; t != null; t = t.getCause() == t ? null : t.getCause()) {
      if (t instanceof SchemaIncompatibilityException || t instanceof MissingRowKeyException) {
        return true;
      }
      if (t instanceof SQLException sql) {
        String state = sql.getSQLState();
        return state == null || !(PERMANENT_STATES.contains(state)
            || state.length() >= 2 && PERMANENT_CLASSES.contains(state.substring(0, 2)));
      }
    }
    return false;
  }
}
