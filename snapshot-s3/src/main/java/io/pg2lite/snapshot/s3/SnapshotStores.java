package io.pg2lite.snapshot.s3;

import io.pg2lite.connect.config.ReplicaConfig;
import io.pg2lite.replica.ReplicaSettings;
import io.pg2lite.replica.follow.FollowSettings;
import io.pg2lite.replica.snapshot.DirectorySnapshotStore;
import io.pg2lite.replica.snapshot.SnapshotStore;
import java.net.URI;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The snapshot store a replica's settings name: a directory ({@code snapshot.dir}), a bucket
 * ({@code snapshot.s3.*}), or none, and the replica core's settings with it. The sink and the
 * follower pick their store and settings here, so both read the same settings the same way.
 */
public final class SnapshotStores {
  private static final Logger LOG = LoggerFactory.getLogger(SnapshotStores.class);

  private SnapshotStores() {}

  /**
   * The replica core's settings for the replica {@code config} describes, with the store it names
   * ({@link #open}, needed when the replica file is missing): one builder for the sink and the
   * follower, which share these settings ({@link ReplicaConfig}). It lives here because it needs
   * both the shared config and the store it opens.
   *
   * @param name who follows, for messages ("sink connector x", "follower y")
   */
  public static FollowSettings followSettings(String name, ReplicaConfig config) {
    ReplicaSettings files = new ReplicaSettings(config.journalMode, config.synchronous, config.busyTimeoutMs,
        config.maxSizeBytes, config.maxTransactionsPerCommit);
    return new FollowSettings(name, config.replicaPath, files, config.resyncAuto, config.retryBackoffMaxMs,
        config.retryTimeoutMs, open(config, !java.nio.file.Files.exists(config.replicaPath)),
        config.snapshotIntervalMs, config.snapshotKeep);
  }

  /**
   * Opens the store and, for a bucket, checks it at once: a missing bucket or refused credentials
   * fail here, naming the setting. An endpoint that cannot be reached fails too when
   * {@code needed} (the replica file is missing, so start-up must restore from the store; or a
   * config is being validated); otherwise it is only warned about: the replica follows on, and the
   * snapshots retry the store at each interval.
   *
   * @throws IllegalArgumentException naming the setting when the store cannot be used as configured
   */
  public static Optional<SnapshotStore> open(ReplicaConfig config, boolean needed) {
    if (config.snapshotDir != null) {
      return Optional.of(new DirectorySnapshotStore(config.snapshotDir));
    }
    if (config.s3.isEmpty()) {
      return Optional.empty();
    }
    ReplicaConfig.S3 c = config.s3.get();
    S3StoreSettings.Builder b = S3StoreSettings.builder(c.bucket()).prefix(c.prefix()).pathStyle(c.pathStyle())
        .partSizeBytes(c.partSizeBytes());
    if (!c.region().isEmpty()) {
      b.region(c.region());
    }
    if (!c.endpoint().isEmpty()) {
      try {
        b.endpoint(URI.create(c.endpoint()));
      } catch (IllegalArgumentException e) {
        throw new IllegalArgumentException(ReplicaConfig.S3_ENDPOINT_CONFIG + ": '" + c.endpoint() + "' is not a URI: "
            + e.getMessage(), e);
      }
    }
    if (!c.accessKeyId().isEmpty() || !c.secretAccessKey().isEmpty()) {
      b.credentials(c.accessKeyId(), c.secretAccessKey());
    }
    S3SnapshotStore store = new S3SnapshotStore(b.build());
    try {
      store.check();
    } catch (S3StoreCheckException e) {
      if (!e.retriable() || needed) {
        store.close();
        throw new IllegalArgumentException(e.getMessage(), e);
      }
      LOG.warn("The snapshot store {} cannot be reached now ({}); going on, and trying again when it is needed",
          store.describe(), e.getMessage());
    }
    return Optional.of(store);
  }
}
