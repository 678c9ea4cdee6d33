package io.pg2lite.backfill.state;

import io.pg2lite.protocol.watermark.Watermark;

/**
 * The copy in progress. The state machine cancels it (a schema change made its snapshot
 * useless); the runner notices before it writes the next backfill transaction.
 */
public final class RunningBackfill {
  private final BackfillRequest request;
  private Watermark minSnapshot;
  private String cancelledReason;

  RunningBackfill(BackfillRequest request) {
    this.request = request;
  }

  /** The request as it was when the copy started: the columns this copy fills. */
  public BackfillRequest request() {
    return request;
  }

  /**
   * Snapshots older than this are useless: a row-key change committed here, and rows re-keyed by
   * it may lack values a newer snapshot has. Null when no such change happened.
   */
  public Watermark minSnapshot() {
    return minSnapshot;
  }

  public boolean isCancelled() {
    return cancelledReason != null;
  }

  public String cancelledReason() {
    return cancelledReason;
  }

  void cancel(String reason) {
    if (cancelledReason == null) {
      cancelledReason = reason;
    }
  }

  void rowKeyChangedAt(Watermark commit) {
    if (minSnapshot == null || commit.isAfter(minSnapshot)) {
      minSnapshot = commit;
    }
  }
}
