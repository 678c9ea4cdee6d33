package io.pg2lite.sink.replica.snapshot;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Optional;
import org.sqlite.SQLiteConfig;

/**
 * SQLite file chores of snapshots: opening a file for a look, reading the replica position a file
 * holds, and removing a replica with its WAL and shared-memory files.
 */
final class SnapshotFiles {
  /** The columns of the replica's state row that a snapshot's manifest repeats. */
  record Position(String replicaVersion, String watermark, String topic, int partition, long offset, Long seq) {}

  private SnapshotFiles() {}

  static Connection open(Path file, int busyTimeoutMs, boolean readOnly) throws SQLException {
    SQLiteConfig cfg = new SQLiteConfig();
    cfg.setBusyTimeout(busyTimeoutMs);
    cfg.setReadOnly(readOnly);
    return cfg.createConnection("jdbc:sqlite:" + file.toAbsolutePath());
  }

  /** The position in {@code file}'s state row; empty when it has none (a replica that applied nothing). */
  static Optional<Position> position(Connection c) throws SQLException {
    try (Statement s = c.createStatement()) {
      try (ResultSet t = s.executeQuery("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = '_pg2lite.state'")) {
        if (!t.next()) {
          return Optional.empty();
        }
      }
      try (ResultSet rs = s.executeQuery("SELECT replica_version, watermark, topic, partition, kafka_offset, "
          + "log_seq FROM \"_pg2lite.state\" WHERE lock = 1")) {
        if (!rs.next() || rs.getString(2) == null) {
          return Optional.empty();
        }
        long seq = rs.getLong(6);
        Long logSeq = rs.wasNull() ? null : seq;
        return Optional.of(new Position(rs.getString(1), rs.getString(2), rs.getString(3), rs.getInt(4),
            rs.getLong(5), logSeq));
      }
    }
  }

  /** Whether {@code replica} needs a restore: missing, or a file that never applied a commit. */
  static boolean missingOrEmpty(Path replica, int busyTimeoutMs) throws SQLException {
    if (!Files.exists(replica)) {
      return true;
    }
    try (Connection c = open(replica, busyTimeoutMs, true)) {
      return position(c).isEmpty();
    }
  }

  /** Deletes a replica file and the WAL and shared-memory files SQLite keeps beside it. */
  static void deleteReplica(Path replica) throws IOException {
    Files.deleteIfExists(replica.resolveSibling(replica.getFileName() + "-wal"));
    Files.deleteIfExists(replica.resolveSibling(replica.getFileName() + "-shm"));
    Files.deleteIfExists(replica);
  }

  /** A string literal for SQL. */
  static String literal(String s) {
    return "'" + s.replace("'", "''") + "'";
  }
}
