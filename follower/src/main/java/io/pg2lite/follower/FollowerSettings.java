package io.pg2lite.follower;

import io.pg2lite.connect.config.ReplicaConfig;
import io.pg2lite.follower.config.FollowerConfig;
import io.pg2lite.replica.ReplicaSettings;
import io.pg2lite.replica.follow.FollowSettings;
import io.pg2lite.replica.snapshot.SnapshotStore;
import io.pg2lite.snapshot.s3.SnapshotStores;
import java.util.Optional;

/** A follower's settings as the replica core takes them. */
public final class FollowerSettings {
  private FollowerSettings() {}

  public static FollowSettings of(FollowerConfig config) {
    ReplicaConfig r = config.replica;
    return new FollowSettings("follower " + config.name, r.replicaPath, new ReplicaSettings(r.journalMode,
        r.synchronous, r.busyTimeoutMs, r.maxSizeBytes, r.maxTransactionsPerCommit), r.resyncAuto,
        r.retryBackoffMaxMs, r.retryTimeoutMs, store(config), r.snapshotIntervalMs, r.snapshotKeep);
  }

  /** The same, taking no snapshots: for {@code restore}, which only restores. */
  public static FollowSettings restoreOnly(FollowerConfig config) {
    FollowSettings s = of(config); // opens the store once
    return new FollowSettings(s.name(), s.replicaPath(), s.replica(), s.resyncAuto(), s.retryBackoffMaxMs(),
        s.retryTimeoutMs(), s.snapshots(), 0, s.snapshotKeep());
  }

  static Optional<SnapshotStore> store(FollowerConfig config) {
    return SnapshotStores.open(config.replica, !java.nio.file.Files.exists(config.replica.replicaPath));
  }
}
