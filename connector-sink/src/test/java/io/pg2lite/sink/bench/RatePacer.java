package io.pg2lite.sink.bench;

import io.pg2lite.testkit.workload.Ledger;
import java.util.concurrent.locks.LockSupport;

/**
 * Paces one writer thread to a rate of commits per second, changeable while it writes ({@link
 * #set}); 0 lets it write as fast as it goes. A writer that fell behind (Postgres busy for a
 * moment) catches up at most one second of its backlog, so a stall is not followed by a burst.
 * {@link #hold} stops the writer after its commit until released (the calibration holds it while
 * the replica is too far behind).
 */
final class RatePacer implements Ledger.Pacer {
  private static final long ONE_SECOND = 1_000_000_000L;
  private volatile double perSecond;
  private volatile boolean held;
  /** When the next commit is due; touched by the writer thread only. */
  private long due = System.nanoTime();

  /** Commits per second from now on; 0 or less: unpaced. */
  void set(double perSecond) {
    this.perSecond = perSecond;
  }

  double perSecond() {
    return perSecond;
  }

  /** Whether the writer waits after its next commit until released. */
  void hold(boolean held) {
    this.held = held;
  }

  @Override
  public void afterCommit() throws InterruptedException {
    while (held) {
      LockSupport.parkNanos(ONE_SECOND / 100);
      if (Thread.interrupted()) {
        throw new InterruptedException();
      }
    }
    double rate = perSecond;
    long now = System.nanoTime();
    if (rate <= 0) {
      due = now;
      return;
    }
    due = Math.max(due + (long) (ONE_SECOND / rate), now - ONE_SECOND);
    while (due - System.nanoTime() > 0) {
      LockSupport.parkNanos(due - System.nanoTime());
      if (Thread.interrupted()) {
        throw new InterruptedException();
      }
    }
  }
}
