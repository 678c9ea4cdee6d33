package io.pg2lite.connect.failure;

import java.time.Duration;
import java.util.function.LongSupplier;

/**
 * A bounded exponential backoff for transient faults: waits double from {@code initial} up to
 * {@code max}; once faults have lasted longer than {@code giveUpAfter} without a success in
 * between, {@link #next} answers {@code -1} and the caller fails permanently, naming the fault. A
 * success resets it.
 *
 * <p>Bounded on purpose: a fault that lasts for hours (a Postgres that never comes back, a revoked
 * password reported as a connection failure) must end as a visible FAILED task, not as a task that
 * looks RUNNING forever.
 */
public final class Backoff {
  private final long initialMs;
  private final long maxMs;
  private final long giveUpAfterMs;
  private final LongSupplier clockMs;
  private long firstFailureAt = -1;
  private long nextWait;

  public Backoff(Duration initial, Duration max, Duration giveUpAfter, LongSupplier clockMs) {
    if (initial.isNegative() || initial.isZero() || max.compareTo(initial) < 0) {
      throw new IllegalArgumentException("backoff needs 0 < initial <= max, got " + initial + ", " + max);
    }
    this.initialMs = initial.toMillis();
    this.maxMs = max.toMillis();
    this.giveUpAfterMs = giveUpAfter.toMillis();
    this.clockMs = clockMs;
    this.nextWait = initialMs;
  }

  /**
   * The connectors' retry policy for transient faults: from 0.5 s, doubling up to
   * {@code maxWaitMs} ({@code retry.backoff.max.ms}), giving up after {@code giveUpAfterMs}
   * ({@code retry.timeout.ms}) without a success, on the wall clock.
   */
  public static Backoff forRetries(long maxWaitMs, long giveUpAfterMs) {
    return new Backoff(Duration.ofMillis(FIRST_WAIT_MS), Duration.ofMillis(maxWaitMs), Duration.ofMillis(giveUpAfterMs),
        System::currentTimeMillis);
  }

  /** The first wait of the connectors' retry policy ({@link #forRetries}). */
  public static final long FIRST_WAIT_MS = 500;

  /** The wait before the next attempt after a transient failure, or -1 when it is time to give up. */
  public long next() {
    long now = clockMs.getAsLong();
    if (firstFailureAt < 0) {
      firstFailureAt = now;
    }
    if (now - firstFailureAt >= giveUpAfterMs) {
      return -1;
    }
    long wait = nextWait;
    nextWait = Math.min(maxMs, nextWait * 2);
    return wait;
  }

  /** How long faults have lasted, for messages; 0 when the last attempt succeeded. */
  public long failingForMs() {
    return firstFailureAt < 0 ? 0 : clockMs.getAsLong() - firstFailureAt;
  }

  /**
   * Whether the faults so far are routine: they began less than {@link #ROUTINE_MS} ago. A
   * reconnect after Postgres dropped the connection, a slot still held by the walsender of a task
   * that is stopping, a broker that restarts: such faults heal within seconds in a healthy
   * pipeline and are logged at INFO, so that a healthy pipeline logs no warning (issue 30). One
   * that lasts longer is worth a WARN; one that makes {@link #next} give up, an ERROR.
   */
  public boolean routine() {
    return failingForMs() < ROUTINE_MS;
  }

  /** How long a fault may last and still be routine (see {@link #routine()}). */
  public static final long ROUTINE_MS = 30_000;

  /** For messages: how long faults may last before {@link #next} gives up. */
  public long giveUpAfterMs() {
    return giveUpAfterMs;
  }

  /** The last attempt succeeded. */
  public void reset() {
    firstFailureAt = -1;
    nextWait = initialMs;
  }
}
