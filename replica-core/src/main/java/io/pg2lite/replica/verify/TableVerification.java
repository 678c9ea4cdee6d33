package io.pg2lite.replica.verify;

import io.pg2lite.protocol.message.Verify;
import io.pg2lite.protocol.verify.BucketDigest;
import io.pg2lite.protocol.verify.Buckets;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Collectors;

/**
 * One table of a verify message, compared: the replica's shape first ({@link ReplicaTableShape}),
 * then its digests ({@link ReplicaDigests}) against the message's, bucket by bucket.
 *
 * <p>Runs over a connection inside a read transaction whose snapshot is the verify's position
 * ({@link ReplicaVerifier} opens it): the metadata and the rows it reads are both of that moment.
 */
public final class TableVerification {
  /** How many differing buckets the detail names; the outcome lists them all. */
  static final int NAMED_IN_DETAIL = 10;

  private TableVerification() {}

  /** The outcome for {@code v} at {@code watermark}, read through {@code c}. */
  public static VerifyOutcome verify(Connection c, Verify v, String watermark) throws SQLException,
      InterruptedException {
    if (v.result() == Verify.Result.NOT_COMPARABLE) {
      return VerifyOutcome.notComparable(v, watermark, "the source could not compare it: " + v.reason());
    }
    ReplicaTableShape shape = ReplicaTableShape.of(c, v);
    if (shape.notComparable() != null) {
      return VerifyOutcome.notComparable(v, watermark, shape.notComparable());
    }
    BucketDigest[] mine;
    try {
      mine = ReplicaDigests.of(c, shape.liteName(), v);
    } catch (IllegalArgumentException e) {
      return VerifyOutcome.notComparable(v, watermark, "a row of the replica does not fit the source's buckets: "
          + e.getMessage());
    }
    return compare(v, watermark, mine);
  }

  private static VerifyOutcome compare(Verify v, String watermark, BucketDigest[] mine) {
    List<VerifyOutcome.BucketDifference> differences = new ArrayList<>();
    long replicaRows = 0;
    for (int b = 0; b < mine.length; b++) {
      Verify.Digest theirs = v.digests().get(b);
      replicaRows += mine[b].count();
      if (!mine[b].equals(BucketDigest.of(theirs.rows(), theirs.sum()))) {
        differences.add(new VerifyOutcome.BucketDifference(b, range(v, b), theirs.rows(), mine[b].count()));
      }
    }
    if (differences.isEmpty()) {
      return new VerifyOutcome(v, watermark, VerifyOutcome.Result.MATCH, null, replicaRows, List.of());
    }
    return new VerifyOutcome(v, watermark, VerifyOutcome.Result.MISMATCH, detail(differences, mine.length),
        replicaRows, differences);
  }

  /** Bucket {@code b} for a reader: its key range, or its number (from 1) among the hashed buckets. */
  static String range(Verify v, int b) {
    Buckets buckets = v.buckets();
    if (buckets instanceof Buckets.Ranges r) {
      return v.relation().rowKey().columns().get(0) + " " + r.from(b) + " to " + r.to(b);
    }
    return "bucket " + (b + 1) + " of " + buckets.count() + " by key hash";
  }

  private static String detail(List<VerifyOutcome.BucketDifference> differences, int buckets) {
    String named = differences.stream().limit(NAMED_IN_DETAIL).map(Object::toString)
        .collect(Collectors.joining("; "));
    int more = differences.size() - NAMED_IN_DETAIL;
    return differences.size() + " of " + buckets + " buckets differ: " + named + (more > 0 ? "; and " + more
        + " more" : "");
  }
}
