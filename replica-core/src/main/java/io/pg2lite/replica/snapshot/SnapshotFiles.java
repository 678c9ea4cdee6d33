package io.pg2lite.replica.snapshot;

import io.pg2lite.replica.file.ReplicaFile;
import io.pg2lite.replica.file.ReplicaState;
import io.pg2lite.replica.file.StateTable;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.Optional;

/**
 * SQLite file chores of snapshots: reading the replica position a file holds (the same
 * {@link StateTable} the replica writes), and removing a replica with its WAL and shared-memory
 * files. Files are opened the one way replicas are ({@link ReplicaFile#connect}).
 */
final class SnapshotFiles {
  private SnapshotFiles() {}

  /**
   * The position in {@code c}'s file ({@link StateTable}); empty when it has none: a replica that
   * applied nothing, or a file that is not a replica yet.
   */
  static Optional<ReplicaState> position(Connection c) throws SQLException {
    ReplicaState state = StateTable.readIfPresent(c);
    return state.isEmpty() ? Optional.empty() : Optional.of(state);
  }

  /** Whether {@code replica} needs a restore: missing, or a file that never applied a commit. */
  static boolean missingOrEmpty(Path replica, int busyTimeoutMs) throws SQLException {
    if (!Files.exists(replica)) {
      return true;
    }
    try (Connection c = ReplicaFile.connect(replica, busyTimeoutMs, true)) {
      return position(c).isEmpty();
    }
  }

  /**
   * Deletes a replica file and the WAL, shared-memory and rollback-journal files SQLite keeps
   * beside it (a {@code VACUUM INTO} that failed, on a full disk for one, leaves its journal).
   */
  static void deleteReplica(Path replica) throws IOException {
    Files.deleteIfExists(replica.resolveSibling(replica.getFileName() + "-journal"));
    Files.deleteIfExists(replica.resolveSibling(replica.getFileName() + "-wal"));
    Files.deleteIfExists(replica.resolveSibling(replica.getFileName() + "-shm"));
    Files.deleteIfExists(replica);
  }

  /** A string literal for SQL. */
  static String literal(String s) {
    return "'" + s.replace("'", "''") + "'";
  }
}
