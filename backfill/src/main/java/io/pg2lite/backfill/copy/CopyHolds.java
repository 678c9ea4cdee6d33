package io.pg2lite.backfill.copy;

import io.pg2lite.protocol.schema.QualifiedName;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * A test seam: holds the copy of a table once it has read a number of rows, until released, so
 * that a test whose premise is "the fault lands inside the copy" holds on any machine, however
 * fast the copy would otherwise finish (issue 30). A held copy writes nothing more; the live
 * stream and every other part of the source go on as usual, so a stop, a restart or a crash then
 * lands in the middle of the copy for certain.
 *
 * <p>Process-wide, because the integration tests' Connect worker runs in the test's JVM and
 * makes its tasks itself: nothing else could reach them. Production code never sets a hold; with
 * none set, {@link #admits} is one look-up in an empty map per batch.
 */
public final class CopyHolds {
  private static final Map<QualifiedName, Long> HOLDS = new ConcurrentHashMap<>();

  private CopyHolds() {}

  /** A hold; closing it releases the copy. */
  public interface Hold extends AutoCloseable {
    @Override
    void close();
  }

  /**
   * Holds every copy of {@code table} once it has read {@code rows} rows (it reads whole
   * batches, so it may read up to one batch more) until the returned hold is closed.
   */
  public static Hold holdAfter(QualifiedName table, long rows) {
    if (HOLDS.putIfAbsent(table, rows) != null) {
      throw new IllegalStateException("the copy of " + table + " is held already");
    }
    return () -> HOLDS.remove(table);
  }

  /** Whether the copy of {@code table}, having read {@code rowsRead} rows, may read more now. */
  public static boolean admits(QualifiedName table, long rowsRead) {
    if (HOLDS.isEmpty()) {
      return true;
    }
    Long limit = HOLDS.get(table);
    return limit == null || rowsRead < limit;
  }
}
