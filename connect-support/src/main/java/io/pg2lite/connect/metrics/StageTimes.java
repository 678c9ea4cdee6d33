package io.pg2lite.connect.metrics;

import java.util.Arrays;
import java.util.List;

/**
 * Where a live upstream transaction's time goes on its way through one task, stage by stage: the
 * last {@link #WINDOW} transactions' times per stage, and their percentiles when asked.
 *
 * <p>The first stage of each task starts at the transaction's commit time as Postgres stamped it
 * (pgoutput's BEGIN), read against this machine's clock: on another host the clocks' offset is in
 * that stage (and the total), the later stages are this JVM's own monotonic clock. Backfill
 * transactions carry no commit time and are not counted.
 *
 * <p>One writer (the task thread) records, any thread reads; both under this object's lock,
 * which a record holds for a few array stores once per upstream transaction.
 */
public final class StageTimes {
  /** Transactions kept per stage: enough for a stable p99, small enough to sort when asked. */
  public static final int WINDOW = 1024;

  private final List<String> names;
  private final long[][] micros;
  private final long[] counts;

  /** @param names the stages in path order; the last is the total, Postgres commit to the task's end */
  public StageTimes(String... names) {
    this.names = List.of(names);
    this.micros = new long[names.length][WINDOW];
    this.counts = new long[names.length];
  }

  /** One transaction's time in stage {@code stage} (an index into the names), in microseconds; negatives count as 0. */
  public synchronized void record(int stage, long us) {
    micros[stage][(int) (counts[stage]++ % WINDOW)] = Math.max(0, us);
  }

  /** {@code t} in microseconds since the epoch: the unit stages are recorded in, for wall-clock starts. */
  public static long micros(java.time.Instant t) {
    return t.getEpochSecond() * 1_000_000L + t.getNano() / 1000;
  }

  /** Forgets every kept time. */
  public synchronized void reset() {
    Arrays.fill(counts, 0);
  }

  /** The {@code p}th percentile (0–100) of {@code stage}'s kept times, in milliseconds; -1 before any. */
  public synchronized double percentileMillis(int stage, double p) {
    int n = (int) Math.min(counts[stage], WINDOW);
    if (n == 0) {
      return -1;
    }
    long[] sorted = Arrays.copyOf(micros[stage], n);
    Arrays.sort(sorted);
    int rank = (int) Math.ceil(p / 100.0 * n) - 1;
    return sorted[Math.max(0, Math.min(n - 1, rank))] / 1000.0;
  }

  /** The total's percentile: the last stage. */
  public double totalMillis(double p) {
    return percentileMillis(names.size() - 1, p);
  }

  /** Every stage's p50 and p99 over its kept transactions, in path order; "" before any. */
  public String describe() {
    StringBuilder b = new StringBuilder();
    for (int i = 0; i < names.size(); i++) {
      long n;
      synchronized (this) {
        n = Math.min(counts[i], WINDOW);
      }
      if (n == 0) {
        continue;
      }
      if (b.length() > 0) {
        b.append("; ");
      }
      b.append(names.get(i)).append(String.format(java.util.Locale.ROOT, ": p50 %.2f ms, p99 %.2f ms", percentileMillis(i,
          50), percentileMillis(i, 99)));
      if (i == names.size() - 1) {
        b.append(" (last ").append(n).append(" transactions)");
      }
    }
    return b.toString();
  }
}
