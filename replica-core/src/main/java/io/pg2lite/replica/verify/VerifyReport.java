package io.pg2lite.replica.verify;

import java.util.Optional;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;

/**
 * The listener the sink and the follower plug in: logs each outcome ({@link VerifyLog}), keeps the
 * figures ({@link VerifyFigures}) and, with {@link MismatchPolicy#FAIL}, the first mismatch, which
 * the apply loop turns into its failure ({@link #mismatch()}) at its next step: the verifier's
 * thread cannot stop the loop itself, and must not fail it halfway through a batch.
 */
public final class VerifyReport implements VerifyListener, VerifyFigures {
  private final MismatchPolicy policy;
  private final AtomicReference<String> verifiedAt = new AtomicReference<>("");
  private final AtomicLong mismatches = new AtomicLong();
  private final AtomicReference<VerifyOutcome> failed = new AtomicReference<>();

  public VerifyReport(MismatchPolicy policy) {
    this.policy = policy;
  }

  @Override
  public void verified(VerifyOutcome o) {
    VerifyLog.log(o);
    if (o.result() == VerifyOutcome.Result.MISMATCH) {
      mismatches.incrementAndGet();
      if (policy == MismatchPolicy.FAIL) {
        failed.compareAndSet(null, o);
      }
    }
    verifiedAt.accumulateAndGet(o.watermark(), (old, now) -> old.compareTo(now) >= 0 ? old : now);
  }

  @Override
  public String verifiedAt() {
    return verifiedAt.get();
  }

  @Override
  public long mismatches() {
    return mismatches.get();
  }

  /**
   * With {@link MismatchPolicy#FAIL}, the first mismatch as the reason to stop (naming the table,
   * the ranges and the remedy); empty otherwise.
   */
  public Optional<String> mismatch() {
    VerifyOutcome o = failed.get();
    return o == null ? Optional.empty() : Optional.of("verification " + o.request().id() + " found table "
        + o.table() + " different from Postgres at watermark " + o.watermark() + ": " + o.detail() + " (source "
        + o.sourceRows() + " rows, replica " + o.replicaRows() + "). " + MismatchPolicy.CONFIG + "=fail stops the "
        + "replica here; nothing it committed is lost. Re-copy the table: " + VerifyLog.remedy(o.table())
        + ", or set " + MismatchPolicy.CONFIG + "=log to go on");
  }
}
