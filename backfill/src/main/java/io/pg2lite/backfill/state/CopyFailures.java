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
 * {@link MissingRowKeyException}); and the errors Postgres reports when a DDL races the copy's
 * start (before the copy holds its lock on the table): an undefined table, column, object or
 * schema ({@code 42P01}, {@code 42703}, {@code 42704}, {@code 3F000}), a cached plan whose result
 * type changed ({@code 0A000}), a lock not available or an object in use ({@code 55P03},
 * {@code 55006}), a cancelled statement ({@code 57014}). The schema change that caused it cancels
 * or restarts the backfill anyway.
 *
 * <p>Stops the task, naming the table: any other error, which no retry cures and which would
 * otherwise leave the replica incomplete while the task looks healthy: a missing privilege,
 * invalid data or a value pg2lite cannot read (an SQLException of its own, without SQLSTATE), a
 * full disk, and anything that is not a database error at all (a NullPointerException or an
 * IllegalStateException is a bug in pg2lite, and retrying a bug only hides it).
 */
public final class CopyFailures {
  /** SQLSTATEs of a DDL racing the start of a copy (see the class comment). */
  private static final Set<String> SCHEMA_RACES = Set.of("42P01", "42703", "42704", "3F000", "0A000", "55P03",
      "55006", "57014");

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
      if (t instanceof SQLException sql && sql.getSQLState() != null && SCHEMA_RACES.contains(sql.getSQLState())) {
        return true;
      }
    }
    return false;
  }
}
