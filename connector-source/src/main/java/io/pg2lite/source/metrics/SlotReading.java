package io.pg2lite.source.metrics;

/**
 * One look at the slot for the metrics, from one query: the WAL it holds back and its state.
 *
 * @param lagBytes WAL bytes the slot retains; -1 when unknown
 * @param status its {@code wal_status} (reserved, extended, unreserved), "lost (reason)" once
 *     Postgres invalidated it, "missing", or "unknown" when it cannot be read
 */
public record SlotReading(long lagBytes, String status) {
  public static final SlotReading UNKNOWN = new SlotReading(-1, "unknown");
  public static final SlotReading MISSING = new SlotReading(-1, "missing");
}
