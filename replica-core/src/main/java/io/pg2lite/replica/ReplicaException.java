package io.pg2lite.replica;

import java.sql.SQLException;

/**
 * SQLite failed: the replica could not be opened, written, committed or rolled back. The
 * replica-level form of an {@link SQLException}, so that nothing outside the replica packages
 * touches {@code java.sql}.
 *
 * <p>Invariant: the {@link SQLException} is always the {@linkplain #getCause() cause}, and the
 * message is its message. The failure rule ({@code io.pg2lite.connect.failure.Failures}) walks
 * the cause chain and reads SQLite's result code there: {@code SQLITE_BUSY}/{@code SQLITE_LOCKED}
 * are transient (retry), anything else permanent; the sink retries a full replica
 * ({@code SQLITE_FULL}) by a rule of its own, {@link io.pg2lite.replica.space.ReplicaFull}.
 */
public final class ReplicaException extends Exception {
  private static final long serialVersionUID = 1L;

  ReplicaException(SQLException cause) {
    super(cause.getMessage(), cause);
  }

  /** For the replica packages outside this one (snapshots): the same wrapping. */
  public static ReplicaException of(SQLException cause) {
    return new ReplicaException(cause);
  }

  /** What SQLite said, as the sink has always reported it: the driver's exception type and message. */
  public String reason() {
    return getCause().getClass().getSimpleName() + ": " + getMessage();
  }
}
