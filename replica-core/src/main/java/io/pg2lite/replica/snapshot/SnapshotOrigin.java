package io.pg2lite.replica.snapshot;

import io.pg2lite.replica.ReplicaException;
import io.pg2lite.replica.file.ReplicaFile;
import io.pg2lite.replica.file.ReplicaState;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.Optional;

/**
 * Which snapshot a replica file was restored from, kept beside it in {@code <replica>.snapshot.json}
 * (the snapshot's manifest), for the {@code status} of a follower that is not running. Written when
 * a restore puts the file in place, removed when a missing replica is started without one (a
 * replay from the log's start), so that it never describes another file than the one beside it.
 */
public final class SnapshotOrigin {
  private SnapshotOrigin() {}

  static Path file(Path replica) {
    return replica.resolveSibling(replica.getFileName() + ".snapshot.json");
  }

  static void record(Path replica, SnapshotManifest m) throws IOException {
    Path tmp = replica.resolveSibling(replica.getFileName() + ".snapshot.json.tmp");
    Files.write(tmp, m.toJson());
    Files.move(tmp, file(replica), java.nio.file.StandardCopyOption.REPLACE_EXISTING,
        java.nio.file.StandardCopyOption.ATOMIC_MOVE);
  }

  static void clear(Path replica) throws IOException {
    Files.deleteIfExists(file(replica));
  }

  /** The snapshot {@code replica} was restored from; empty when it was not, or the record is unreadable. */
  public static Optional<SnapshotManifest> of(Path replica) {
    Path f = file(replica);
    try {
      return Optional.of(SnapshotManifest.fromJson(f.toString(), Files.readAllBytes(f)));
    } catch (NoSuchFileException e) {
      return Optional.empty();
    } catch (IOException | CorruptSnapshotException e) {
      return Optional.empty();
    }
  }

  /**
   * The position a replica file holds, read without writing (a follower's {@code status}, which may
   * run beside the follower); empty when the file is missing or has applied nothing.
   */
  public static Optional<ReplicaState> position(Path replica, int busyTimeoutMs) throws ReplicaException {
    if (!Files.exists(replica)) {
      return Optional.empty();
    }
    try (Connection c = ReplicaFile.connect(replica, busyTimeoutMs, true)) {
      return SnapshotFiles.position(c);
    } catch (SQLException e) {
      throw ReplicaException.of(e);
    }
  }
}
