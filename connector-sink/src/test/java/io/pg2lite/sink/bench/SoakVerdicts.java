package io.pg2lite.sink.bench;

import java.util.List;
import java.util.Locale;
import java.util.function.ToDoubleFunction;

/**
 * The soak's claims about its minutes (issue 28): memory flat, latency without drift. The minutes
 * after a warm-up of a tenth of the run (at least one minute) are cut into a first and a second
 * half (the second gets the odd minute); for a 60-minute run that is minutes 6–32 against 33–59,
 * the "last 30 minutes against the first 30 after warm-up" scaled so that both halves
 * come after the warm-up.
 */
final class SoakVerdicts {
  /** Heap and RSS: the second half's mean within this fraction of the first half's (either way). */
  static final double FLAT = 0.10;
  /**
   * p99: the median of the second half's per-minute p99 at most this fraction above the first
   * half's, counting only the probe rows whose way from commit to visible met no fault
   * ({@link SoakMinute#quietP99}; a fault's own stall is the heal time, reported apart). TODO
   */
  static final double P99_DRIFT = 0.25;

  /** One claim: what, whether it held, the figures. */
  record Verdict(String name, boolean pass, String detail) {
    @Override
    public String toString() {
      return (pass ? "PASS" : "FAIL") + "  " + name + ": " + detail;
    }
  }

  private SoakVerdicts() {}

  static int warmUpMinutes(int minutes) {
    return Math.max(1, (int) Math.round(minutes * 0.1));
  }

  /** The minutes after the warm-up: [0] the first half, [1] the second. */
  static List<List<SoakMinute>> halves(List<SoakMinute> rows, int minutes) {
    List<SoakMinute> after = rows.stream().filter(r -> r.minute() >= warmUpMinutes(minutes)).toList();
    int first = after.size() / 2;
    return List.of(after.subList(0, first), after.subList(first, after.size()));
  }

  /** The mean of {@code metric} in the second half within {@link #FLAT} of the first half's. */
  static Verdict flat(String name, List<SoakMinute> rows, int minutes, ToDoubleFunction<SoakMinute> metric) {
    List<List<SoakMinute>> h = halves(rows, minutes);
    double first = mean(h.get(0), metric);
    double second = mean(h.get(1), metric);
    if (Double.isNaN(first) || Double.isNaN(second)) {
      return new Verdict(name, false, "no figures in " + (Double.isNaN(first) ? "the first" : "the second") + " half");
    }
    double change = (second - first) / first;
    return new Verdict(name, Math.abs(change) <= FLAT, String.format(Locale.ROOT,
        "mean %.0f MB in minutes %s, %.0f MB in minutes %s: %+.1f %% (bound ±%.0f %%)", first, span(h.get(0)), second,
        span(h.get(1)), change * 100, FLAT * 100));
  }

  /** The median per-minute p99 of the quiet minutes of the second half at most {@link #P99_DRIFT} above the first's. */
  static Verdict p99WithoutDrift(List<SoakMinute> rows, int minutes) {
    List<List<SoakMinute>> h = halves(rows, minutes);
    List<Double> first = quietP99(h.get(0));
    List<Double> second = quietP99(h.get(1));
    if (first.isEmpty() || second.isEmpty()) {
      return new Verdict("p99 without drift", false, "no minute with enough probe rows that met no fault in the "
          + (first.isEmpty() ? "first" : "second") + " half (minutes " + span(h.get(first.isEmpty() ? 0 : 1)) + ")");
    }
    double a = median(first);
    double b = median(second);
    return new Verdict("p99 without drift", b <= a * (1 + P99_DRIFT), String.format(Locale.ROOT,
        "median of the per-minute p99 of the probe rows that met no fault: %.0f ms in the first half (%d minutes), "
            + "%.0f ms in the second (%d minutes): %+.1f %% (bound +%.0f %%)", a, first.size(), b, second.size(),
        (b - a) / a * 100, P99_DRIFT * 100));
  }

  private static List<Double> quietP99(List<SoakMinute> half) {
    return half.stream().map(SoakMinute::quietP99).filter(v -> !Double.isNaN(v)).toList();
  }

  static double mean(List<SoakMinute> rows, ToDoubleFunction<SoakMinute> metric) {
    return rows.stream().mapToDouble(metric).filter(v -> !Double.isNaN(v)).average().orElse(Double.NaN);
  }

  static double median(List<Double> values) {
    List<Double> sorted = values.stream().sorted().toList();
    int n = sorted.size();
    return n % 2 == 1 ? sorted.get(n / 2) : (sorted.get(n / 2 - 1) + sorted.get(n / 2)) / 2;
  }

  private static String span(List<SoakMinute> rows) {
    return rows.isEmpty() ? "(none)" : rows.get(0).minute() + "–" + rows.get(rows.size() - 1).minute();
  }
}
