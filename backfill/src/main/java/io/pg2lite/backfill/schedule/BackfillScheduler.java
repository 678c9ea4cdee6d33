package io.pg2lite.backfill.schedule;

/**
 * When a backfill transaction may be written, and how many batches it may hold. The main stream
 * always has priority (reference §5.3):
 *
 * <ul>
 *   <li>never inside a main-stream transaction (transactions are whole);
 *   <li>while the main stream is idle, a backfill transaction of up to {@code idleBatches} batches,
 *       after which the main stream is polled again: a live change waits at most one such
 *       transaction;
 *   <li>while the main stream is busy, the backfill waits, but once it has waited
 *       {@link #MAX_LOW_PRIORITY_DELAY_MILLIS} the main stream yields at its next transaction
 *       boundary for one batch, so a copy progresses under any load.
 * </ul>
 */
public final class BackfillScheduler {
  public static final long MAX_LOW_PRIORITY_DELAY_MILLIS = 1_000;

  private final int idleBatches;
  private long waitingSince = -1;

  public BackfillScheduler(int idleBatches) {
    if (idleBatches < 1) {
      throw new IllegalArgumentException("idleBatches must be at least 1, was " + idleBatches);
    }
    this.idleBatches = idleBatches;
  }

  /** How many batches a backfill transaction may hold now; 0 = not now. */
  public int batchesAllowed(MainStreamState main, boolean backfillHasWork, long nowMillis) {
    if (!backfillHasWork) {
      waitingSince = -1;
      return 0;
    }
    switch (main) {
      case IDLE:
        waitingSince = -1;
        return idleBatches;
      case BUSY:
        if (waitingSince < 0) {
          waitingSince = nowMillis;
          return 0;
        }
        if (nowMillis - waitingSince >= MAX_LOW_PRIORITY_DELAY_MILLIS) {
          waitingSince = nowMillis; // waits again from its turn
          return 1;
        }
        return 0;
      case IN_TRANSACTION:
        if (waitingSince < 0) {
          waitingSince = nowMillis;
        }
        return 0;
      default:
        throw new IllegalStateException("unknown main stream state " + main);
    }
  }
}
