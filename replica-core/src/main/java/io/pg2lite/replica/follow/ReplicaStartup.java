package io.pg2lite.replica.follow;

import io.pg2lite.connect.failure.Healing;
import io.pg2lite.replica.Replica;
import io.pg2lite.replica.ReplicaException;
import io.pg2lite.replica.apply.ReplicaApplier;
import io.pg2lite.replica.snapshot.SnapshotRestorer;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.Optional;
import java.util.OptionalLong;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Gets a replica to apply to: a snapshot restored first when the file is missing (with a snapshot
 * store), then the file opened. Both are retried on transient faults, but only briefly
 * ({@value #RETRY_MAX_MS} ms at most): for the sink this runs before Connect reports the task
 * running, and Connect cannot stop the task meanwhile; a follower's start-up is as impatient.
 */
final class ReplicaStartup {
  private static final Logger LOG = LoggerFactory.getLogger(ReplicaStartup.class);
  static final long RETRY_MAX_MS = 60_000;

  /**
   * The replica and its applier; the offset of the snapshot it was restored from, if any; and, when
   * none could be restored, what the store held, for the too-far-behind message ("" otherwise).
   */
  record Opened(Replica replica, ReplicaApplier applier, OptionalLong restoredFrom, String restoreNote) {}

  private final FollowSettings config;
  /** Heals the restore and the open; an {@link UncheckedIOException} (the store or Kafka unreadable) is transient. */
  private final Healing healing;

  ReplicaStartup(FollowSettings config) {
    this.config = config;
    this.healing = Healing.forRetries("The replica's start-up (" + config.replicaPath() + ")",
        config.retryBackoffMaxMs(), Math.min(config.retryTimeoutMs(), RETRY_MAX_MS), FollowSettings.RETRY_TIMEOUT
        + " (at most " + RETRY_MAX_MS + " in start-up)", LOG).alsoTransient(e -> e instanceof UncheckedIOException);
  }

  Opened open(Optional<ReplicaSnapshots> snapshots) {
    OptionalLong restored = OptionalLong.empty();
    String note = "";
    if (snapshots.isPresent()) {
      SnapshotRestorer.Outcome out = restore(snapshots.get());
      if (out.restored().isPresent()) {
        restored = OptionalLong.of(out.restored().get().offset());
      } else if (out.considered() > 0) {
        note = " No snapshot in " + snapshots.get().describe() + " could start it: " + String.join("; ",
            out.skipped()) + ".";
      } else {
        note = " " + snapshots.get().describe() + " holds no snapshot of this change log.";
      }
    }
    while (true) {
      Replica replica = null;
      try {
        replica = config.replica().open(config.replicaPath());
        return new Opened(replica, new ReplicaApplier(replica, config.replica().maxTransactionsPerCommit()), restored,
            note);
      } catch (ReplicaException e) {
        closeQuietly(replica);
        retry(new ReplicaStartException("cannot open replica " + config.replicaPath() + ": " + e.getMessage(), e));
      }
    }
  }

  private SnapshotRestorer.Outcome restore(ReplicaSnapshots snapshots) {
    while (true) {
      try {
        return snapshots.restoreIfMissing();
      } catch (IOException e) {
        retry(new UncheckedIOException("cannot restore replica " + config.replicaPath() + " from "
            + snapshots.describe() + ": " + e.getMessage(), e));
      } catch (ReplicaException e) {
        retry(new ReplicaStartException("cannot restore replica " + config.replicaPath() + " from "
            + snapshots.describe() + ": " + e.getMessage(), e));
      }
    }
  }

  /** Waits the next backoff after a transient fault; throws once the fault is permanent or lasts too long. */
  private void retry(RuntimeException e) {
    healing.failed(e, "trying again"); // throws a permanent fault, or one past the limit
    try {
      healing.awaitAttempt();
    } catch (InterruptedException ie) {
      Thread.currentThread().interrupt();
      throw new ReplicaStartException("interrupted while waiting to open the replica", ie);
    }
  }

  private static void closeQuietly(Replica replica) {
    if (replica != null) {
      try {
        replica.close();
      } catch (ReplicaException ignored) {
        // opening failed; the next attempt opens a new connection
      }
    }
  }

  /** The replica could not be restored or opened; its cause says whether that was transient. */
  static final class ReplicaStartException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    ReplicaStartException(String message, Throwable cause) {
      super(message, cause);
    }
  }
}
