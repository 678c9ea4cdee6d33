package io.pg2lite.replica.verify;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pg2lite.protocol.message.Verify;
import io.pg2lite.protocol.schema.Relation;
import io.pg2lite.protocol.schema.RowKey;
import io.pg2lite.protocol.verify.Buckets;
import io.pg2lite.protocol.watermark.Watermark;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/** What the sink and the follower make of outcomes: figures, and with {@code fail} the reason to stop. */
class VerifyReportTest {
  private static final Verify ORDERS = new Verify("v1", new Relation("shop", "orders", RowKey.of("id")), List.of("id"),
      Watermark.fromLsn("0/280"), Watermark.fromLsn("0/200"), Verify.Result.COMPARED, null, null,
      new Buckets.Ranges(1, 8192, 2), List.of(new Verify.Digest(4096, "0".repeat(32)),
          new Verify.Digest(4096, "0".repeat(32))), 0);

  private static VerifyOutcome mismatch(String at) {
    return new VerifyOutcome(ORDERS, at, VerifyOutcome.Result.MISMATCH, "1 of 2 buckets differ: id 1 to 4096 (source "
        + "4096 rows, replica 4095)", 8191, List.of(new VerifyOutcome.BucketDifference(0, "id 1 to 4096", 4096, 4095)));
  }

  private static VerifyOutcome match(String at) {
    return new VerifyOutcome(ORDERS, at, VerifyOutcome.Result.MATCH, null, 8192, List.of());
  }

  @Test
  void logCountsAMismatchAndGoesOn() {
    VerifyReport r = new VerifyReport(MismatchPolicy.LOG);
    assertEquals("", r.verifiedAt());
    r.verified(match("0000000300"));
    r.verified(mismatch("0000000400"));
    assertEquals(1, r.mismatches());
    assertEquals("0000000400", r.verifiedAt());
    assertEquals(Optional.empty(), r.mismatch());
  }

  @Test
  void failKeepsTheFirstMismatchAsTheReasonToStop() {
    VerifyReport r = new VerifyReport(MismatchPolicy.FAIL);
    r.verified(match("0000000300"));
    assertEquals(Optional.empty(), r.mismatch());
    r.verified(mismatch("0000000400"));
    r.verified(match("0000000350"));
    assertEquals("0000000400", r.verifiedAt(), "the latest position, whatever order outcomes come in");
    String why = r.mismatch().orElseThrow();
    assertTrue(why.contains("shop.orders") && why.contains("id 1 to 4096 (source 4096 rows, replica 4095)")
        && why.contains("SELECT pg2lite.resync('shop.orders')") && why.contains("verify.mismatch=log"), why);
  }

  @Test
  void theRemedyQuotesTheTableName() {
    assertEquals("SELECT pg2lite.resync('public.o''brien')",
        VerifyLog.remedy(new io.pg2lite.protocol.schema.QualifiedName("public", "o'brien")));
  }

  @Test
  void policiesAreSpelledAsConfigured() {
    assertEquals(MismatchPolicy.FAIL, MismatchPolicy.of(" Fail "));
    assertEquals(List.of("log", "fail"), List.of(MismatchPolicy.names()));
  }
}
