package io.pg2lite.backfill.schedule;

/**
 * When a backfill transaction may be written, how many batches it may hold, and for how long it
 * may read. The main stream always has priority (reference §5.3), and a copy adapts to it:
 *
 * <ul>
 *   <li>never inside a main-stream transaction (transactions are whole);
 *   <li>not in the poll that wrote a main-stream transaction: that poll ends (and its Kafka
 *       transaction commits) at once, so a live change never waits for a backfill transaction
 *       written after it. When every poll writes one, every other poll copies, so the copy never
 *       starves;
 *   <li>while live transactions flow (one was written in the last {@link #LIVE_WINDOW_MILLIS}),
 *       a backfill transaction reads for at most {@code liveBudgetMillis}: a live change waits
 *       for at most one such short transaction, at the source and again at every sink, which
 *       apply the log in order. The copy goes on between live transactions, so it slows down
 *       by the cost of a Kafka commit per short transaction, not by the live traffic itself;
 *   <li>while the main stream is idle, a backfill transaction of up to {@code idleBatches}
 *       batches, read without a time bound: nobody waits behind it;
 *   <li>while the main stream is busy (more changes waiting), the backfill waits, but once it
 *       has waited {@link #MAX_LOW_PRIORITY_DELAY_MILLIS} the main stream yields at its next
 *       transaction boundary for one batch, so a copy progresses under any load.
 * </ul>
 */
public final class BackfillScheduler {
  public static final long MAX_LOW_PRIORITY_DELAY_MILLIS = 1_000;
  /** How recent the last live transaction must be for the copy to keep its transactions short. */
  public static final long LIVE_WINDOW_MILLIS = 1_000;
  public static final long DEFAULT_LIVE_BUDGET_MILLIS = 10;

  private final int idleBatches;
  private final long liveBudgetMillis;
  private long waitingSince = -1;
  private long lastLiveMillis = Long.MIN_VALUE;
  private boolean liveSinceLastTurn;
  private boolean deferredLastTurn;

  public BackfillScheduler(int idleBatches) {
    this(idleBatches, DEFAULT_LIVE_BUDGET_MILLIS);
  }

  public BackfillScheduler(int idleBatches, long liveBudgetMillis) {
    if (idleBatches < 1) {
      throw new IllegalArgumentException("idleBatches must be at least 1, was " + idleBatches);
    }
    if (liveBudgetMillis < 1) {
      throw new IllegalArgumentException("liveBudgetMillis must be at least 1, was " + liveBudgetMillis);
    }
    this.idleBatches = idleBatches;
    this.liveBudgetMillis = liveBudgetMillis;
  }

  /** A main-stream (live) transaction was written to the log at {@code nowMillis}. */
  public void mainTransactionWritten(long nowMillis) {
    lastLiveMillis = nowMillis;
    liveSinceLastTurn = true;
  }

  /** How many batches a backfill transaction may hold now; 0 = not now. */
  public int batchesAllowed(MainStreamState main, boolean backfillHasWork, long nowMillis) {
    boolean liveThisPoll = liveSinceLastTurn;
    liveSinceLastTurn = false;
    if (!backfillHasWork) {
      waitingSince = -1;
      return 0;
    }
    switch (main) {
      case IDLE:
        waitingSince = -1;
        if (liveThisPoll && !deferredLastTurn) {
          deferredLastTurn = true; // this poll ends with its live transactions; the next one copies
          return 0;
        }
        deferredLastTurn = false;
        return idleBatches; // bounded by readDeadline while live transactions flow
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

  /**
   * The time after which a backfill transaction started at {@code nowMillis} adds no further
   * batch (it always holds at least one): {@code liveBudgetMillis} ahead while live transactions
   * flow, none otherwise.
   */
  public long readDeadline(long nowMillis) {
    boolean live = lastLiveMillis != Long.MIN_VALUE && nowMillis - lastLiveMillis < LIVE_WINDOW_MILLIS;
    return live ? nowMillis + liveBudgetMillis : Long.MAX_VALUE;
  }
}
