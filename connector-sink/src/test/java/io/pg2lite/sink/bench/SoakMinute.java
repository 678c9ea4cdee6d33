package io.pg2lite.sink.bench;

import java.util.Arrays;
import java.util.Locale;
import java.util.stream.Collectors;

/**
 * One minute of a soak as {@link MinuteSampler} saw it, one value per worker slot where it says so
 * (-1: no worker in that slot at the sample).
 *
 * @param heapMb the heap a worker still held after a full collection at the sample: its live set
 *     ({@link io.pg2lite.testkit.connect.WorkerProcess#liveHeapMbNow})
 * @param rssMb the worker process's resident memory at the sample ({@code VmRSS})
 * @param openFiles the worker's open file descriptors at the sample
 * @param p50 commit → visible, ms, of the probe rows that became visible in that minute (NaN: none)
 * @param quietP99 the same of the rows whose way from commit to visible met no fault, when they are
 *     at least half the minute's probe rows (else NaN): what the drift claim compares
 * @param pendingMs how long the oldest probe row not yet visible had waited at the sample
 * @param lag records of the change log not yet committed by the sink's consumer group (-1: unknown)
 * @param txPerSecond ledger transactions committed in Postgres per second in that minute
 * @param faults the faults under way in that minute (empty: none)
 */
record SoakMinute(int minute, long[] heapMb, long[] rssMb, long[] openFiles, double p50,
    double p99, int probes, double quietP50, double quietP99, int quietProbes, long pendingMs, long lag,
    double txPerSecond, String faults) {

  boolean faulty() {
    return !faults.isEmpty();
  }

  /** The workers' heaps together (NaN unless every slot has a figure). */
  double heapSum() {
    return sum(heapMb);
  }

  /** The workers' resident memory together (NaN unless every slot has a figure). */
  double rssSum() {
    return sum(rssMb);
  }

  private static double sum(long[] values) {
    return Arrays.stream(values).anyMatch(v -> v < 0) ? Double.NaN : Arrays.stream(values).sum();
  }

  static String header(int workers) {
    return String.format(Locale.ROOT, format(workers, "%4s", "%7s %7s %6s %9s %7s %6s %6s  %s"), "min",
        "live heap MB", "RSS MB", "open files", "p50 ms", "p99 ms", "probes", "quiet p99", "waiting", "lag", "tx/s",
        "fault");
  }

  String line() {
    return String.format(Locale.ROOT, format(heapMb.length, "%4d", "%7s %7s %6d %9s %7s %6s %6.0f  %s"), minute,
        join(heapMb), join(rssMb), join(openFiles), ms(p50), ms(p99), probes, ms(quietP99),
        pendingMs < 1000 ? "-" : String.format(Locale.ROOT, "%.0f s", pendingMs / 1000.0), lag < 0 ? "?" : lag,
        txPerSecond, faults);
  }

  /** {@code first}, three per-worker columns wide enough for {@code workers} figures, {@code rest}. */
  private static String format(int workers, String first, String rest) {
    String column = "%-" + Math.max(16, workers * 6) + "s";
    return first + " " + column + " " + column + " " + column + " " + rest;
  }

  static String csvHeader(int workers) {
    StringBuilder sb = new StringBuilder("minute");
    for (String what : new String[] {"live_heap_mb", "rss_mb", "open_files"}) {
      for (int i = 1; i <= workers; i++) {
        sb.append(',').append(what).append("_w").append(i);
      }
    }
    return sb.append(",p50_ms,p99_ms,probes,quiet_p50_ms,quiet_p99_ms,quiet_probes,waiting_ms,lag_records,"
        + "ledger_tx_per_s,fault").toString();
  }

  String csv() {
    StringBuilder sb = new StringBuilder(Integer.toString(minute));
    for (long[] values : new long[][] {heapMb, rssMb, openFiles}) {
      for (long v : values) {
        sb.append(',').append(v < 0 ? "" : Long.toString(v));
      }
    }
    return sb.append(String.format(Locale.ROOT, ",%s,%s,%d,%s,%s,%d,%d,%s,%.1f,\"%s\"", csvMs(p50), csvMs(p99), probes,
        csvMs(quietP50), csvMs(quietP99), quietProbes, pendingMs, lag < 0 ? "" : Long.toString(lag), txPerSecond,
        faults.replace("\"", "'"))).toString();
  }

  private static String join(long[] values) {
    return Arrays.stream(values).mapToObj(v -> v < 0 ? "-" : Long.toString(v)).collect(Collectors.joining("/"));
  }

  private static String ms(double v) {
    return Double.isNaN(v) ? "-" : String.format(Locale.ROOT, "%.0f", v);
  }

  private static String csvMs(double v) {
    return Double.isNaN(v) ? "" : String.format(Locale.ROOT, "%.1f", v);
  }
}
