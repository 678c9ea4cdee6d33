package io.pg2lite.source.transaction;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * A test seam: holds a source inside an upstream transaction once it has written a number of the
 * transaction's changes, until released, so that a test whose premise is "the stop (or the crash)
 * lands inside a transaction" holds on any machine, however fast the source would otherwise write
 * the rest (issue 30). A held source reads nothing more from its slot and writes nothing more;
 * Connect sees a task whose polls return nothing, as for an idle database, so a graceful stop
 * works as usual.
 *
 * <p>Keyed by slot name and process-wide, because the integration tests' Connect worker runs in
 * the test's JVM and makes its tasks itself. A worker in a process of its own (a test that kills
 * it) is held by the system property {@value #PROPERTY} ({@code <slot>=<changes>}), for the life
 * of that process: the worker that takes over is started without it. Production code never sets
 * a hold; with none set, {@link #admits} is one look-up in an empty map per poll.
 */
public final class TransactionHolds {
  /** Holds a worker process: {@code -Dpg2lite.test.holdTransactionAfter=<slot>=<changes>}. */
  public static final String PROPERTY = "pg2lite.test.holdTransactionAfter";
  private static final Map<String, Long> HOLDS = new ConcurrentHashMap<>();

  static {
    String hold = System.getProperty(PROPERTY);
    if (hold != null) {
      int eq = hold.lastIndexOf('=');
      if (eq <= 0) {
        throw new IllegalArgumentException(PROPERTY + " must be <slot>=<changes>, not " + hold);
      }
      HOLDS.put(hold.substring(0, eq), Long.parseLong(hold.substring(eq + 1)));
    }
  }

  private TransactionHolds() {}

  /** A hold; closing it releases the source. */
  public interface Hold extends AutoCloseable {
    @Override
    void close();
  }

  /**
   * Holds the source of {@code slot} once it has written {@code changes} changes of one upstream
   * transaction (it writes whole batches, so it may write a batch more) until the hold is closed.
   */
  public static Hold holdAfter(String slot, long changes) {
    if (HOLDS.putIfAbsent(slot, changes) != null) {
      throw new IllegalStateException("the source of slot " + slot + " is held already");
    }
    return () -> HOLDS.remove(slot);
  }

  /**
   * Whether the source of {@code slot} may go on, having written {@code changesOfOpen} changes of
   * the transaction it is inside (-1: outside any).
   */
  public static boolean admits(String slot, long changesOfOpen) {
    if (HOLDS.isEmpty() || changesOfOpen < 0) {
      return true;
    }
    Long limit = HOLDS.get(slot);
    return limit == null || changesOfOpen < limit;
  }
}
