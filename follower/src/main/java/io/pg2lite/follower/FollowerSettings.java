package io.pg2lite.follower;

import io.pg2lite.follower.config.FollowerConfig;
import io.pg2lite.replica.follow.FollowSettings;
import io.pg2lite.snapshot.s3.SnapshotStores;

/** A follower's settings as the replica core takes them. */
public final class FollowerSettings {
  private FollowerSettings() {}

  public static FollowSettings of(FollowerConfig config) {
    return SnapshotStores.followSettings("follower " + config.name, config.replica);
  }

  /** The same, taking no snapshots: for {@code restore}, which only restores. */
  public static FollowSettings restoreOnly(FollowerConfig config) {
    FollowSettings s = of(config); // opens the store once
    return new FollowSettings(s.name(), s.replicaPath(), s.replica(), s.resyncAuto(), s.retryBackoffMaxMs(),
        s.retryTimeoutMs(), s.snapshots(), 0, s.snapshotKeep());
  }
}
