package io.pg2lite.replica.verify;

import io.pg2lite.protocol.message.Verify;
import io.pg2lite.protocol.stored.StoredValue;
import io.pg2lite.protocol.verify.BucketDigest;
import io.pg2lite.protocol.verify.Buckets;
import io.pg2lite.protocol.verify.RowHash;
import io.pg2lite.replica.lite.SqlNames;
import io.pg2lite.replica.schema.ReplicaSchema;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.SortedMap;
import java.util.TreeMap;

/**
 * The replica's digests of one table, bucket by bucket, with the protocol's rule: the rows whose
 * {@code _0_version} is at or below the message's {@code since} (or NULL), within its key range,
 * each hashed over the message's columns as SQLite returns them and added to the bucket of its
 * key. One pass over the table, in no order (a digest is a sum).
 *
 * <p>Checks for interruption every {@value #CHECK_EVERY} rows: closing the replica stops a digest
 * of a large table within milliseconds.
 */
final class ReplicaDigests {
  private static final int CHECK_EVERY = 1024;

  private ReplicaDigests() {}

  /**
   * The digests of {@code liteTable}, one per bucket of {@code v}.
   *
   * @throws IllegalArgumentException when a row's key does not fit the buckets (a ranged key that
   *     is not an integer in the replica)
   */
  static BucketDigest[] of(Connection c, String liteTable, Verify v) throws SQLException, InterruptedException {
    Buckets buckets = v.buckets();
    BucketDigest[] digests = new BucketDigest[buckets.count()];
    for (int b = 0; b < digests.length; b++) {
      digests[b] = new BucketDigest();
    }
    List<String> columns = v.columns();
    List<String> key = v.relation().rowKey().columns();
    RowHash rowHash = new RowHash();
    RowHash keyHash = new RowHash();
    try (PreparedStatement ps = c.prepareStatement(select(liteTable, columns, v))) {
      ps.setString(1, v.since().toString());
      if (v.keyRange() != null) {
        ps.setLong(2, v.keyRange().from());
        ps.setLong(3, v.keyRange().to());
      }
      try (ResultSet rs = ps.executeQuery()) {
        long n = 0;
        while (rs.next()) {
          if (++n % CHECK_EVERY == 0 && Thread.currentThread().isInterrupted()) {
            throw new InterruptedException("the digest of " + liteTable + " was stopped");
          }
          SortedMap<String, StoredValue> row = new TreeMap<>();
          for (int i = 0; i < columns.size(); i++) {
            row.put(columns.get(i), StoredValue.ofJdbc(rs.getObject(i + 1)));
          }
          List<StoredValue> keyValues = new ArrayList<>(key.size());
          for (String k : key) {
            keyValues.add(row.get(k));
          }
          digests[buckets.of(keyValues, keyHash)].plus(rowHash.of(row));
        }
      }
    }
    return digests;
  }

  private static String select(String liteTable, List<String> columns, Verify v) {
    StringBuilder sql = new StringBuilder("SELECT ");
    for (int i = 0; i < columns.size(); i++) {
      sql.append(i == 0 ? "" : ", ").append(SqlNames.quote(columns.get(i)));
    }
    String version = SqlNames.quote(ReplicaSchema.ROW_VERSION);
    sql.append(" FROM ").append(SqlNames.quote(liteTable)).append(" WHERE (").append(version).append(" IS NULL OR ")
        .append(version).append(" <= ?)");
    if (v.keyRange() != null) {
      String k = SqlNames.quote(v.relation().rowKey().columns().get(0));
      sql.append(" AND ").append(k).append(" >= ? AND ").append(k).append(" <= ?");
    }
    return sql.toString();
  }
}
