package io.pg2lite.replica.verify;

import io.pg2lite.protocol.message.Verify;
import io.pg2lite.replica.file.MetadataTables;
import io.pg2lite.replica.lite.SqlNames;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Types;
import java.time.Instant;

/**
 * The rows of {@link MetadataTables#VERIFY}: one per verification and table, keyed by the
 * request's id and the upstream table ({@code schema.name}).
 *
 * <p>Lifecycle: {@code pending}, written in the upstream transaction that carries the message (so
 * it is durable exactly when that position is); then its outcome ({@code match}, {@code mismatch},
 * {@code not-comparable}, {@code not-compared}), written when the digest is done. A request asked
 * again under the same id (the source restarted) replaces the row; an outcome only ever updates
 * the row of its own position, so a late one cannot overwrite the newer request's.
 */
public final class VerifyRows {
  static final String PENDING = "pending";
  static final String RESTARTED = "restarted before the digest was complete";

  private VerifyRows() {}

  /** Records {@code v} as pending at {@code watermark}; inside the transaction that carries it. */
  public static void insertPending(Connection c, Verify v, String watermark) throws SQLException {
    try (PreparedStatement ps = c.prepareStatement("INSERT OR REPLACE INTO " + SqlNames.quote(MetadataTables.VERIFY)
        + " (id, table_name, watermark, snapshot, since, result, detail, source_rows, replica_rows, excluded,"
        + " checked_at) VALUES (?, ?, ?, ?, ?, ?, NULL, ?, NULL, ?, NULL)")) {
      ps.setString(1, v.id());
      ps.setString(2, v.relation().table().toString());
      ps.setString(3, watermark);
      ps.setString(4, v.snapshot().toString());
      ps.setString(5, v.since().toString());
      ps.setString(6, PENDING);
      if (v.result() == Verify.Result.COMPARED) {
        ps.setLong(7, v.digests().stream().mapToLong(Verify.Digest::rows).sum());
        ps.setLong(8, v.excluded());
      } else {
        ps.setNull(7, Types.INTEGER);
        ps.setNull(8, Types.INTEGER);
      }
      ps.executeUpdate();
    }
  }

  /** Writes {@code o} over its pending row; false when that row is gone or replaced by a newer request. */
  static boolean record(Connection c, VerifyOutcome o, Instant at) throws SQLException {
    try (PreparedStatement ps = c.prepareStatement("UPDATE " + SqlNames.quote(MetadataTables.VERIFY)
        + " SET result = ?, detail = ?, replica_rows = ?, checked_at = ? WHERE id = ? AND table_name = ?"
        + " AND watermark = ?")) {
      ps.setString(1, o.result().stored);
      ps.setString(2, o.detail());
      if (o.replicaRows() < 0) {
        ps.setNull(3, Types.INTEGER);
      } else {
        ps.setLong(3, o.replicaRows());
      }
      ps.setString(4, at.toString());
      ps.setString(5, o.request().id());
      ps.setString(6, o.table().toString());
      ps.setString(7, o.watermark());
      return ps.executeUpdate() == 1;
    }
  }

  /**
   * At start-up: every row still pending is not compared, since the read snapshot its digest needed
   * went with the process. Returns how many.
   */
  public static int markRestarted(Connection c, Instant at) throws SQLException {
    try (PreparedStatement ps = c.prepareStatement("UPDATE " + SqlNames.quote(MetadataTables.VERIFY)
        + " SET result = ?, detail = ?, checked_at = ? WHERE result = ?")) {
      ps.setString(1, VerifyOutcome.Result.NOT_COMPARED.stored);
      ps.setString(2, RESTARTED);
      ps.setString(3, at.toString());
      ps.setString(4, PENDING);
      return ps.executeUpdate();
    }
  }
}
