package io.pg2lite.replica.file;

import io.pg2lite.replica.lite.SqlNames;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;

/**
 * The one row of {@link MetadataTables#STATE}: the replica's position. Its {@code lock = 1}
 * primary key keeps it one row, so a write replaces the position rather than adding to it.
 */
public final class StateTable {
  private StateTable() {}

  /** The position {@code c}'s file holds; {@link ReplicaState#EMPTY} when it has no state row. */
  public static ReplicaState read(Connection c) throws SQLException {
    try (Statement s = c.createStatement(); ResultSet rs = s.executeQuery("SELECT replica_version, watermark, topic,"
        + " partition, kafka_offset, log_seq FROM " + SqlNames.quote(MetadataTables.STATE) + " WHERE lock = 1")) {
      if (!rs.next()) {
        return ReplicaState.EMPTY;
      }
      long seq = rs.getLong(6);
      Long logSeq = rs.wasNull() ? null : seq;
      return new ReplicaState(rs.getString(1), rs.getString(2), rs.getString(3), rs.getInt(4), rs.getLong(5), logSeq);
    }
  }

  /**
   * As {@link #read}, for a file that may not be a replica yet (a snapshot's copy, a file a crash
   * left): {@link ReplicaState#EMPTY} when it has no {@link MetadataTables#STATE} table either.
   */
  public static ReplicaState readIfPresent(Connection c) throws SQLException {
    try (PreparedStatement ps = c.prepareStatement("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?")) {
      ps.setString(1, MetadataTables.STATE);
      try (ResultSet t = ps.executeQuery()) {
        if (!t.next()) {
          return ReplicaState.EMPTY;
        }
      }
    }
    return read(c);
  }

  static void write(Connection c, ReplicaState state) throws SQLException {
    try (PreparedStatement ps = c.prepareStatement("INSERT OR REPLACE INTO " + SqlNames.quote(MetadataTables.STATE)
        + " (lock, replica_version, watermark, topic, partition, kafka_offset, log_seq) VALUES (1, ?, ?, ?, ?, ?, ?)")) {
      ps.setString(1, state.replicaVersion());
      ps.setString(2, state.watermark());
      ps.setString(3, state.topic());
      ps.setInt(4, state.partition());
      ps.setLong(5, state.offset());
      if (state.seq() == null) {
        ps.setNull(6, java.sql.Types.INTEGER);
      } else {
        ps.setLong(6, state.seq());
      }
      ps.executeUpdate();
    }
  }
}
