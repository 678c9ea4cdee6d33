package io.pg2lite.testkit.support;

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
   * Checks that {@code invariant} stays true for the whole {@code period}, polling it; fails at the
   * first poll where it is false, with {@code what}. This is how a test says "nothing happens
   * while X" (a task stays RUNNING while a server is down, a replica stays unchanged while its
   * lock is held): the period is the claim under test, not a guess at how long something takes.
   */
  public static void during(String what, Duration period, BooleanSupplier invariant) {
    long end = System.nanoTime() + period.toNanos();
    do {
      if (!invariant.getAsBoolean()) {
        throw new AssertionError("Not true for " + period.toMillis() + " ms: " + what);
      }
      LockSupport.parkNanos(POLL_NANOS);
    } while (System.nanoTime() - end < 0);
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
