package io.pg2lite.connect.hold;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * A test seam: holds a piece of work once it has done a number of steps, until released, so that a
 * test whose premise is "the fault lands inside X" holds on any machine, however fast X would
 * otherwise finish (issue 30, ADR 0019). Two kinds of work are held:
 * <ul>
 *   <li>{@link #COPY}: a backfill copy of a table, after a number of rows read; a held copy writes
 *       nothing more, while the live stream goes on;</li>
 *   <li>{@link #TRANSACTION}: the source of a slot inside an upstream transaction, after a number
 *       of its changes written; a held source reads and writes nothing more, and Connect sees a
 *       task whose polls return nothing, as for an idle database, so a graceful stop works.</li>
 * </ul>
 *
 * <p>Process-wide, because the integration tests' Connect worker runs in the test's JVM and makes
 * its tasks itself: nothing else could reach them. A worker in a process of its own (a test that
 * kills it) is held by the system property {@value #PROPERTY} ({@code <kind><name>=<steps>}), for
 * the life of that process. Production code never sets a hold; with none set, {@link #admits} is
 * one look at an empty map per batch.
 */
public final class TestHolds {
  /** Holds a worker process: {@code -Dpg2lite.test.hold=transaction:<slot>=<changes>}. */
  public static final String PROPERTY = "pg2lite.test.hold";
  /** The kind of a copy's hold; the name is the table's qualified name. */
  public static final String COPY = "copy:";
  /** The kind of a source's hold; the name is its slot. */
  public static final String TRANSACTION = "transaction:";
  /**
   * Releases the hold of a worker process once this file exists:
   * {@code -Dpg2lite.test.hold.release=<path>}. A test that must let the held work go on after its
   * fault (a broker killed inside the transaction) creates the file; without the property the
   * hold lasts the life of the process.
   */
  public static final String RELEASE_PROPERTY = "pg2lite.test.hold.release";
  private static final Map<String, Long> HOLDS = new ConcurrentHashMap<>();
  private static final Path RELEASE = System.getProperty(RELEASE_PROPERTY) == null ? null
      : Path.of(System.getProperty(RELEASE_PROPERTY));

  static {
    String hold = System.getProperty(PROPERTY);
    if (hold != null) {
      int eq = hold.lastIndexOf('=');
      if (eq <= 0) {
        throw new IllegalArgumentException(PROPERTY + " must be <kind><name>=<steps>, not " + hold);
      }
      HOLDS.put(hold.substring(0, eq), Long.parseLong(hold.substring(eq + 1)));
    }
  }

  private TestHolds() {}

  /** A hold; closing it releases the work. */
  public interface Hold extends AutoCloseable {
    @Override
    void close();
  }

  /**
   * Holds the work {@code kind + name} once it has done {@code steps} steps (work goes in batches,
   * so it may do up to a batch more) until the returned hold is closed.
   */
  public static Hold holdAfter(String kind, String name, long steps) {
    String key = kind + name;
    if (HOLDS.putIfAbsent(key, steps) != null) {
      throw new IllegalStateException(key + " is held already");
    }
    return () -> HOLDS.remove(key);
  }

  /** Whether the work {@code kind + name}, having done {@code stepsDone} steps (-1: none under way), may go on. */
  public static boolean admits(String kind, Object name, long stepsDone) {
    if (HOLDS.isEmpty() || stepsDone < 0) {
      return true;
    }
    Long limit = HOLDS.get(kind + name);
    if (limit == null || stepsDone < limit) {
      return true;
    }
    if (RELEASE != null && Files.exists(RELEASE)) {
      HOLDS.remove(kind + name);
      return true;
    }
    return false;
  }
}
