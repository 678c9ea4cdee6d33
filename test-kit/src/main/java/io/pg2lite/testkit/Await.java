package io.pg2lite.testkit;

import java.time.Duration;
import java.util.concurrent.locks.LockSupport;
import java.util.function.BooleanSupplier;
import java.util.function.Supplier;

/**
 * Waits for a condition on a real server by polling it, never by sleeping a fixed time: a test
 * is as fast as the server and fails with a message saying what never happened.
 */
public final class Await {
  private static final long POLL_NANOS = Duration.ofMillis(50).toNanos();

  private Await() {}

  /** Polls {@code condition} until true; fails with {@code what} after {@code timeout}. */
  public static void until(String what, Duration timeout, BooleanSupplier condition) {
    value(what, timeout, () -> condition.getAsBoolean() ? Boolean.TRUE : null);
  }

  /**
   * Polls {@code probe} until it returns non-null and returns that value; fails with {@code what}
   * after {@code timeout}, including the last exception the probe threw, if any.
   */
  public static <T> T value(String what, Duration timeout, Supplier<T> probe) {
    long deadline = System.nanoTime() + timeout.toNanos();
    RuntimeException last = null;
    while (true) {
      try {
        T v = probe.get();
        if (v != null) {
          return v;
        }
      } catch (RuntimeException e) {
        last = e;
      }
      if (System.nanoTime() - deadline > 0) {
        AssertionError failure = new AssertionError("Timed out after " + timeout.toMillis() + " ms waiting for " + what);
        if (last != null) {
          failure.initCause(last);
        }
        throw failure;
      }
      LockSupport.parkNanos(POLL_NANOS);
    }
  }
}
