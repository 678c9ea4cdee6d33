package io.pg2lite.backfill.state;

/**
 * Delay before retrying after a failed copy: 2 s, doubling to at most 60 s, back to 2 s after a
 * copy ends normally. A copy that fails for a lasting reason (a non-empty table without a row
 * key) so costs one snapshot a minute, and one that failed on a passing schema change retries soon.
 */
public final class RetryBackoff {
  public static final long INITIAL_MILLIS = 2_000;
  public static final long MAX_MILLIS = 60_000;
  /** Delays up to this one (the first three failures in a row) are routine: logged at INFO. */
  public static final long ROUTINE_MILLIS = 8_000;

  private long nextDelayMillis = INITIAL_MILLIS;

  /** The delay for this failure; the next one doubles. */
  public long failed() {
    long delay = nextDelayMillis;
    nextDelayMillis = Math.min(nextDelayMillis * 2, MAX_MILLIS);
    return delay;
  }

  public void succeeded() {
    nextDelayMillis = INITIAL_MILLIS;
  }
}
