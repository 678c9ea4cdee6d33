package io.pg2lite.replica.follow;

import io.pg2lite.replica.ReplicaSettings;
import io.pg2lite.replica.snapshot.SnapshotStore;
import io.pg2lite.replica.verify.VerifyListener;
import java.nio.file.Path;
import java.util.Optional;

/**
 * How a replica follows its change log, the same settings under the same names for the sink
 * connector and a follower (their configs parse them; messages here name them).
 *
 * @param name who follows, for thread names and messages: the connector or follower name
 * @param replicaPath the replica file (or the symbolic link the lineages swap)
 * @param replica how the file is opened
 * @param snapshots the snapshot store, empty when snapshots are off
 * @param snapshotIntervalMs how often a snapshot is taken; 0 takes none (a store to restore from only)
 */
public record FollowSettings(String name, Path replicaPath, ReplicaSettings replica, boolean resyncAuto,
    long retryBackoffMaxMs, long retryTimeoutMs, Optional<SnapshotStore> snapshots, long snapshotIntervalMs,
    int snapshotKeep) {
  public static final String REPLICA_PATH = "replica.path";
  public static final String MAX_SIZE = "replica.max.size.bytes";
  public static final String RETRY_TIMEOUT = "retry.timeout.ms";
  public static final String SNAPSHOT_INTERVAL = "snapshot.interval.ms";

  /** The same settings, the replica's verifications told to {@code listener} (a sink's or follower's report). */
  public FollowSettings withVerify(VerifyListener listener) {
    return new FollowSettings(name, replicaPath, replica.withVerify(listener), resyncAuto, retryBackoffMaxMs,
        retryTimeoutMs, snapshots, snapshotIntervalMs, snapshotKeep);
  }

  /** Whether the replica runs in WAL mode (its WAL counts towards its size). */
  public boolean wal() {
    return "WAL".equalsIgnoreCase(replica.journalMode());
  }
}
