package io.pg2lite.testkit.support;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * A line chart of a bench's curves (cost against size), written as a self-contained SVG file that
 * docs/performance.md shows: the figures come from the run that printed them, never drawn by hand.
 * Points are joined in the order they were added; each series gets a colour and a marker so the
 * chart stays readable in black and white. The x axis may be logarithmic (sizes that grow by
 * factors of 10); the y axis is linear from zero, so a curve's fall reads as a real fall, not as
 * an artefact of a cut axis.
 */
public final class SvgPlot {
  private static final String[] COLOURS = {"#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e", "#17becf"};
  private static final int WIDTH = 720;
  private static final int HEIGHT = 400;
  private static final int LEFT = 70;
  private static final int RIGHT = 240;
  private static final int TOP = 40;
  private static final int BOTTOM = 50;

  private final String title;
  private final String xLabel;
  private final String yLabel;
  private final boolean logX;
  private final Map<String, List<double[]>> series = new LinkedHashMap<>();

  public SvgPlot(String title, String xLabel, String yLabel, boolean logX) {
    this.title = title;
    this.xLabel = xLabel;
    this.yLabel = yLabel;
    this.logX = logX;
  }

  /** Adds one point to the named series (created on first use); NaN or infinite y is skipped. */
  public SvgPlot point(String seriesName, double x, double y) {
    if (logX && x <= 0) {
      throw new IllegalArgumentException("x must be > 0 on a logarithmic axis: " + x);
    }
    if (Double.isFinite(y)) {
      series.computeIfAbsent(seriesName, k -> new ArrayList<>()).add(new double[] {x, y});
    }
    return this;
  }

  /** The y of the series' last point (NaN when it has none): for a summary line beside the chart. */
  public double last(String seriesName) {
    List<double[]> points = series.get(seriesName);
    return points == null || points.isEmpty() ? Double.NaN : points.get(points.size() - 1)[1];
  }

  /** Writes the chart (creating the directory) and returns the file. */
  public Path write(Path file) throws IOException {
    if (file.getParent() != null) {
      Files.createDirectories(file.getParent());
    }
    Files.writeString(file, svg());
    return file;
  }

  /** The chart as SVG text. */
  public String svg() {
    double xMin = Double.MAX_VALUE;
    double xMax = -Double.MAX_VALUE;
    double yMax = 0;
    for (List<double[]> points : series.values()) {
      for (double[] p : points) {
        xMin = Math.min(xMin, p[0]);
        xMax = Math.max(xMax, p[0]);
        yMax = Math.max(yMax, p[1]);
      }
    }
    if (xMin == Double.MAX_VALUE) {
      xMin = 0;
      xMax = 1;
    }
    double yTop = niceTop(yMax);
    Axis x = logX ? Axis.log(xMin, xMax) : Axis.linear(Math.min(0, xMin), xMax == xMin ? xMin + 1 : xMax);
    int plotW = WIDTH - LEFT - RIGHT;
    int plotH = HEIGHT - TOP - BOTTOM;
    StringBuilder s = new StringBuilder();
    s.append(String.format(Locale.ROOT, "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" "
        + "viewBox=\"0 0 %d %d\" font-family=\"sans-serif\" font-size=\"12\">%n", WIDTH, HEIGHT, WIDTH, HEIGHT));
    s.append(String.format(Locale.ROOT, "<rect width=\"%d\" height=\"%d\" fill=\"white\"/>%n", WIDTH, HEIGHT));
    s.append(String.format(Locale.ROOT, "<text x=\"%d\" y=\"22\" font-size=\"14\" font-weight=\"bold\">%s</text>%n",
        LEFT, escape(title)));
    // Grid and ticks: y in five steps from zero, x at each decade (log) or five steps (linear).
    for (int i = 0; i <= 5; i++) {
      double v = yTop * i / 5;
      double py = TOP + plotH - plotH * (v / yTop);
      s.append(String.format(Locale.ROOT, "<line x1=\"%d\" y1=\"%.1f\" x2=\"%d\" y2=\"%.1f\" stroke=\"#ddd\"/>%n", LEFT,
          py, LEFT + plotW, py));
      s.append(String.format(Locale.ROOT, "<text x=\"%d\" y=\"%.1f\" text-anchor=\"end\">%s</text>%n", LEFT - 6,
          py + 4, label(v)));
    }
    for (double v : x.ticks()) {
      double px = LEFT + plotW * x.fraction(v);
      s.append(String.format(Locale.ROOT, "<line x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" y2=\"%d\" stroke=\"#ddd\"/>%n", px,
          TOP, px, TOP + plotH));
      s.append(String.format(Locale.ROOT, "<text x=\"%.1f\" y=\"%d\" text-anchor=\"middle\">%s</text>%n", px,
          TOP + plotH + 16, label(v)));
    }
    s.append(String.format(Locale.ROOT, "<rect x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\" fill=\"none\" "
        + "stroke=\"#333\"/>%n", LEFT, TOP, plotW, plotH));
    s.append(String.format(Locale.ROOT, "<text x=\"%d\" y=\"%d\" text-anchor=\"middle\">%s</text>%n",
        LEFT + plotW / 2, HEIGHT - 12, escape(xLabel + (logX ? " (log scale)" : ""))));
    s.append(String.format(Locale.ROOT, "<text x=\"16\" y=\"%d\" text-anchor=\"middle\" "
        + "transform=\"rotate(-90 16 %d)\">%s</text>%n", TOP + plotH / 2, TOP + plotH / 2, escape(yLabel)));
    int n = 0;
    for (Map.Entry<String, List<double[]>> e : series.entrySet()) {
      String colour = COLOURS[n % COLOURS.length];
      StringBuilder path = new StringBuilder();
      StringBuilder marks = new StringBuilder();
      for (double[] p : e.getValue()) {
        double px = LEFT + plotW * x.fraction(p[0]);
        double py = TOP + plotH - plotH * (p[1] / yTop);
        path.append(path.isEmpty() ? "M" : " L").append(String.format(Locale.ROOT, "%.1f %.1f", px, py));
        marks.append(marker(n, px, py, colour));
      }
      s.append(String.format(Locale.ROOT, "<path d=\"%s\" fill=\"none\" stroke=\"%s\" stroke-width=\"2\"/>%n", path,
          colour));
      s.append(marks);
      int ly = TOP + 10 + 20 * n;
      s.append(marker(n, LEFT + plotW + 16, ly - 4, colour));
      s.append(String.format(Locale.ROOT, "<text x=\"%d\" y=\"%d\">%s</text>%n", LEFT + plotW + 26, ly,
          escape(e.getKey())));
      n++;
    }
    return s.append("</svg>\n").toString();
  }

  private static String marker(int series, double x, double y, String colour) {
    return switch (series % 3) {
      case 0 -> String.format(Locale.ROOT, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"3.5\" fill=\"%s\"/>%n", x, y, colour);
      case 1 -> String.format(Locale.ROOT, "<rect x=\"%.1f\" y=\"%.1f\" width=\"7\" height=\"7\" fill=\"%s\"/>%n",
          x - 3.5, y - 3.5, colour);
      default -> String.format(Locale.ROOT, "<path d=\"M%.1f %.1f L%.1f %.1f L%.1f %.1f Z\" fill=\"%s\"/>%n", x,
          y - 4.5, x + 4.5, y + 3.5, x - 4.5, y + 3.5, colour);
    };
  }

  /** The smallest of 1, 2, 2.5, 5 × 10^k at or above {@code max}, so the y ticks are round numbers. */
  static double niceTop(double max) {
    if (max <= 0) {
      return 1;
    }
    double p = Math.pow(10, Math.floor(Math.log10(max)));
    for (double m : new double[] {1, 2, 2.5, 5, 10}) {
      if (m * p >= max) {
        return m * p;
      }
    }
    return 10 * p;
  }

  static String label(double v) {
    double a = Math.abs(v);
    if (a >= 1e6 && a % 1e5 == 0) {
      return trim(v / 1e6) + "M";
    }
    if (a >= 1e3 && a % 100 == 0) {
      return trim(v / 1e3) + "k";
    }
    return trim(v);
  }

  private static String trim(double v) {
    if (v == Math.rint(v)) {
      return String.valueOf((long) v);
    }
    return String.format(Locale.ROOT, "%.2f", v).replaceAll("0+$", "");
  }

  private static String escape(String text) {
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;");
  }

  /** Where a value falls along the x axis, as a fraction of the plot's width. */
  private interface Axis {
    double fraction(double v);

    List<Double> ticks();

    static Axis linear(double min, double max) {
      return new Axis() {
        @Override
        public double fraction(double v) {
          return (v - min) / (max - min);
        }

        @Override
        public List<Double> ticks() {
          double top = niceTop(max);
          List<Double> out = new ArrayList<>();
          for (int i = 0; i <= 5; i++) {
            double v = min + (top - min) * i / 5;
            if (v <= max * 1.0001) {
              out.add(v);
            }
          }
          return out;
        }
      };
    }

    static Axis log(double min, double max) {
      double lo = Math.floor(Math.log10(min));
      double hi = Math.max(lo + 1, Math.ceil(Math.log10(max)));
      return new Axis() {
        @Override
        public double fraction(double v) {
          return (Math.log10(v) - lo) / (hi - lo);
        }

        @Override
        public List<Double> ticks() {
          List<Double> out = new ArrayList<>();
          for (double d = lo; d <= hi; d++) {
            out.add(Math.pow(10, d));
          }
          return out;
        }
      };
    }
  }
}
