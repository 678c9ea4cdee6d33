package io.pg2lite.replica.verify;

import io.pg2lite.protocol.message.Verify;
import io.pg2lite.protocol.schema.QualifiedName;
import java.util.List;
import java.util.Objects;

/**
 * What the replica found for one table of a verify message, at {@code watermark}: the commit
 * watermark of the transaction that carried the message, the position compared.
 *
 * @param request the message, with the source's digests
 * @param detail for a mismatch the differing buckets, for a table not compared why; null on a match
 * @param replicaRows rows the replica counted (those at or below {@code since}); -1 when none were
 * @param differences the buckets whose digests differ, in bucket order; empty unless a mismatch
 */
public record VerifyOutcome(Verify request, String watermark, Result result, String detail, long replicaRows,
    List<BucketDifference> differences) {

  /** The outcome, as {@code _pg2lite.verify.result} spells it. */
  public enum Result {
    MATCH("match"), MISMATCH("mismatch"), NOT_COMPARABLE("not-comparable"), NOT_COMPARED("not-compared");

    public final String stored;

    Result(String stored) {
      this.stored = stored;
    }
  }

  /**
   * One bucket whose rows differ: its readable range ("id 1 to 4096", or "bucket 3 of 16 by key
   * hash", counted from 1) and how many rows each side has there (equal counts: a value differs).
   */
  public record BucketDifference(int bucket, String range, long sourceRows, long replicaRows) {
    @Override
    public String toString() {
      return range + " (source " + sourceRows + " rows, replica " + replicaRows + ")";
    }
  }

  public VerifyOutcome {
    Objects.requireNonNull(request, "request");
    Objects.requireNonNull(watermark, "watermark");
    Objects.requireNonNull(result, "result");
    differences = List.copyOf(differences);
  }

  static VerifyOutcome notComparable(Verify request, String watermark, String why) {
    return new VerifyOutcome(request, watermark, Result.NOT_COMPARABLE, why, -1, List.of());
  }

  static VerifyOutcome notCompared(Verify request, String watermark, String why) {
    return new VerifyOutcome(request, watermark, Result.NOT_COMPARED, why, -1, List.of());
  }

  /** The upstream table. */
  public QualifiedName table() {
    return request.relation().table();
  }

  /** Rows of the source's digests (0 when the source did not compare). */
  public long sourceRows() {
    return request.digests().stream().mapToLong(Verify.Digest::rows).sum();
  }
}
