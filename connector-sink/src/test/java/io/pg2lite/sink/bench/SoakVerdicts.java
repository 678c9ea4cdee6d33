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
   * ({@link SoakMinute#quietP99}; a fault's own stall is its heal time, reported apart). A
   * single minute says little: in the 10-minute runs recorded in docs/performance.md ("Soak") the
   * p99 of minutes without a stall ranged from 180 to 610 ms, and a minute in which a backfill
   * started reached 2.6–5.7 s. The median over a half's minutes (about fifteen in the hour) takes
   * out the minutes with a stall as long as they are fewer than half, and the spread that remains
   * is what the bound allows for; a rise of more than a quarter within half an hour is what a
   * queue or a cost that grows with time shows. Chosen, not derived: the hour's runs tell whether
   * it is too tight. Only a rise fails: a p99 that falls has not drifted the way that matters.
   */
  static final double P99_DRIFT = 0.25;
  /**
   * Fewer minutes than this in a half and the drift is not judged (the verdict says so and does
   * not fail): the median of one or two minutes is one backfill's stall more or less. The
   * 10-minute form, a fault every 2 minutes, has one or two such minutes a half.
   */
  static final int MIN_QUIET_MINUTES = 3;

  /** One claim: what, whether it held (or that the run cannot tell), the figures. */
  record Verdict(String name, boolean pass, boolean judged, String detail) {
    Verdict(String name, boolean pass, String detail) {
      this(name, pass, true, detail);
    }

    static Verdict notJudged(String name, String detail) {
      return new Verdict(name, true, false, detail);
    }

    @Override
    public String toString() {
      return (!judged ? "N/A " : pass ? "PASS" : "FAIL") + "  " + name + ": " + detail;
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
    String figures = String.format(Locale.ROOT, "median of the per-minute p99 of the probe rows that met no fault:"
        + " %s ms in the first half (%d minutes: %s), %s ms in the second (%d minutes: %s)", ms(first), first.size(),
        span(h.get(0)), ms(second), second.size(), span(h.get(1)));
    if (first.size() < MIN_QUIET_MINUTES || second.size() < MIN_QUIET_MINUTES) {
      return Verdict.notJudged("p99 without drift", "not judged, fewer than " + MIN_QUIET_MINUTES + " minutes"
          + " with enough probe rows that met no fault in a half; " + figures);
    }
    double a = median(first);
    double b = median(second);
    return new Verdict("p99 without drift", b <= a * (1 + P99_DRIFT), String.format(Locale.ROOT,
        "%s: %+.1f %% (bound +%.0f %%)", figures, (b - a) / a * 100, P99_DRIFT * 100));
  }

  private static List<Double> quietP99(List<SoakMinute> half) {
    return half.stream().map(SoakMinute::quietP99).filter(v -> !Double.isNaN(v)).toList();
  }

  private static String ms(List<Double> values) {
    return values.isEmpty() ? "-" : String.format(Locale.ROOT, "%.0f", median(values));
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
