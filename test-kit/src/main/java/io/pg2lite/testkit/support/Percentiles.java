package io.pg2lite.testkit.support;

import java.util.List;

/** The percentiles benches print, one rule for all: the nearest-rank method over sorted samples. */
public final class Percentiles {
  private Percentiles() {}

  /** The {@code p}th percentile (nearest rank) of {@code sorted}, in ascending order; NaN when it is empty. */
  public static double of(List<Double> sorted, int p) {
    return sorted.isEmpty() ? Double.NaN : sorted.get(Math.max(0, Math.min(sorted.size() - 1, (int) Math.ceil(p / 100.0 * sorted.size()) - 1)));
  }
}
