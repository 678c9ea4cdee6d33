package io.pg2lite.testkit.support;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

class SvgPlotTest {
  @Test
  void yAxisTopsAtARoundNumberAtOrAboveTheLargestValue() {
    assertEquals(1, SvgPlot.niceTop(0));
    assertEquals(50_000, SvgPlot.niceTop(43_210));
    assertEquals(25, SvgPlot.niceTop(20.5));
    assertEquals(100, SvgPlot.niceTop(100));
  }

  @Test
  void labelsUseThousandsAndMillions() {
    assertEquals("20M", SvgPlot.label(20_000_000));
    assertEquals("2.5k", SvgPlot.label(2_500));
    assertEquals("0.25", SvgPlot.label(0.25));
    assertEquals("7", SvgPlot.label(7));
  }

  @Test
  void pointsLandWhereTheirValuesSayOnALogAxis() {
    // Plot area: x 70..480 (720 wide, 70 left, 240 right), y 40..350; 10 lies midway between 1 and 100.
    String svg = new SvgPlot("t", "x", "y", true).point("a", 1, 0).point("a", 10, 50).point("a", 100, 100).svg();
    assertTrue(svg.contains("M70.0 350.0 L275.0 195.0 L480.0 40.0"), svg);
    assertTrue(svg.contains(">a</text>"), svg);
  }

  @Test
  void skipsNonFiniteValuesAndRefusesZeroOnALogAxis() {
    String svg = new SvgPlot("t", "x", "y", false).point("a", 1, Double.NaN).point("a", 2, 4).svg();
    assertEquals(1, svg.split("<circle").length - 2, svg); // one point, one legend marker
    assertThrows(IllegalArgumentException.class, () -> new SvgPlot("t", "x", "y", true).point("a", 0, 1));
  }
}
