package io.pg2lite.follower.cli;

import io.pg2lite.follower.FollowerSettings;
import io.pg2lite.follower.config.FollowerConfig;
import io.pg2lite.connect.kafka.ChangeLogAdmin;
import io.pg2lite.replica.ReplicaException;
import io.pg2lite.replica.file.ReplicaState;
import io.pg2lite.replica.follow.ReplicaFollowing;
import io.pg2lite.replica.follow.ReplicaWriterLock;
import io.pg2lite.replica.snapshot.SnapshotManifest;
import io.pg2lite.replica.snapshot.SnapshotOrigin;
import java.io.PrintStream;
import java.nio.file.Files;
import java.time.Duration;
import java.util.Optional;
import java.util.OptionalLong;

/** The program's one-shot commands: {@code restore} and {@code status}. */
final class Commands {
  private Commands() {}

  /**
   * Restores the replica from the newest usable snapshot when its file is missing, through the
   * same start-up the follower and the sink run (writer lock, verified download), then exits.
   * Exit 1 when no snapshot could start it: the message says what the store held.
   */
  static int restore(FollowerConfig config, PrintStream out, PrintStream err) throws InterruptedException {
    if (!config.replica.hasSnapshotStore()) {
      err.println("pg2lite-follower: restore needs a snapshot store: set snapshot.dir (or snapshot.s3.bucket)");
      return 2;
    }
    boolean present = Files.exists(config.replica.replicaPath);
    ChangeLogAdmin view = new ChangeLogAdmin(config.bootstrapServers, config.kafkaClientProps);
    try (ReplicaFollowing replica = ReplicaFollowing.open(FollowerSettings.restoreOnly(config), view, config.topic, 0,
        (t, p, o) -> { }, Duration.ZERO)) {
      OptionalLong from = replica.restoredFrom();
      ReplicaState s = replica.position();
      if (from.isPresent()) {
        out.println("Restored " + config.replica.replicaPath + " from the snapshot at offset " + from.getAsLong()
            + " (watermark " + s.watermark() + ", replica version " + s.replicaVersion() + ")");
        return 0;
      }
      if (present && !s.isEmpty()) {
        out.println(config.replica.replicaPath + " is already there (watermark " + s.watermark() + ", offset "
            + s.offset() + "); left alone");
        return 0;
      }
      err.println("pg2lite-follower: no snapshot could start " + config.replica.replicaPath + " (see the warnings "
          + "above); `follow` would replay the change log from its start");
      return 1;
    } catch (ReplicaException e) {
      err.println("pg2lite-follower: " + e.getMessage());
      return 1;
    }
  }

  /** Prints the replica's position, its lag behind the log, its writer and the snapshot it came from. */
  static int status(FollowerConfig config, PrintStream out) {
    var path = config.replica.replicaPath;
    Optional<ReplicaState> state;
    try {
      state = SnapshotOrigin.position(path, config.replica.busyTimeoutMs);
    } catch (ReplicaException e) {
      out.println("replica:        " + path.toAbsolutePath() + " (unreadable: " + e.getMessage() + ")");
      return 1;
    }
    out.println("replica:        " + path.toAbsolutePath() + (Files.exists(path) ? "" : " (missing)"));
    out.println("writer:         " + writer(path));
    if (state.isEmpty()) {
      out.println("position:       none (nothing applied yet)");
    } else {
      ReplicaState s = state.get();
      out.println("replica version: " + s.replicaVersion());
      out.println("watermark:      " + s.watermark());
      out.println("offset:         " + s.topic() + "-" + s.partition() + "@" + s.offset());
      ChangeLogAdmin view = new ChangeLogAdmin(config.bootstrapServers, config.kafkaClientProps);
      OptionalLong end = view.logEnd(s.topic(), s.partition());
      out.println("lag:            " + (end.isPresent() ? Math.max(0, end.getAsLong() - s.offset() - 1)
          + " offsets behind the log's end (transaction markers count)" : "unknown (Kafka not reachable)"));
    }
    Optional<SnapshotManifest> origin = SnapshotOrigin.of(path);
    out.println("restored from:  " + origin.map(m -> "snapshot " + m.id() + " (offset " + m.offset() + ", watermark "
        + m.watermark() + ", taken " + m.createdAt() + ")").orElse("no snapshot (replayed from the log)"));
    return 0;
  }

  private static String writer(java.nio.file.Path replica) {
    try (ReplicaWriterLock lock = ReplicaWriterLock.acquire(replica, "status", Duration.ZERO)) {
      return "none";
    } catch (ReplicaWriterLock.InUse e) {
      try {
        return Files.readString(ReplicaWriterLock.lockFile(replica)).trim();
      } catch (java.io.IOException io) {
        return "held by another process";
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return "unknown";
    } catch (RuntimeException e) {
      return "unknown (" + e.getMessage() + ")";
    }
  }
}
