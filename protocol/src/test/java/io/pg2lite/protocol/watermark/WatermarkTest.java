package io.pg2lite.protocol.watermark;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.math.BigInteger;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

class WatermarkTest {
  /** zero-reference.md §3.2. */
  @ParameterizedTest
  @CsvSource({"0/0, 00", "0/A, 0a", "0/16B3748, 4e672g", "0/1A2B3C4D, 579e6a5", "1/0, 61z141z4",
      "16/B374D848, 718sh0nk8", "00000016/b374d848, 718sh0nk8", "FFFFFFFF/FFFFFFFF, c3w5e11264sgsf"})
  void convertsLsnsToWatermarks(String lsn, String watermark) {
    assertEquals(watermark, Watermark.fromLsn(lsn).toString());
    assertEquals(Lsn.parse(lsn), Watermark.parse(watermark).toLsn());
  }

  @Test
  void toLsnUsesTheMajorPartOnly() {
    assertEquals("16/B374D848", Watermark.parse("718sh0nk8.123").toLsn().toString());
  }

  @Test
  void toLsnRejectsValuesBeyond64Bits() {
    Watermark w = Watermark.fromLsn("FFFFFFFF/FFFFFFFF").nextMajor();
    assertEquals("c3w5e11264sgsg", w.toString());
    assertThrows(IllegalArgumentException.class, w::toLsn);
  }

  @Test
  void nextMajorIsThePreCommitWatermark() {
    Watermark commit = Watermark.fromLsn("0/16B3748");
    Watermark pre = commit.nextMajor();
    assertEquals("4e672h", pre.toString());
    assertTrue(pre.isAfter(commit));
    assertTrue(pre.isAtOrBefore(Watermark.fromLsn("0/16B3749")));
    assertTrue(pre.isAfter(commit.nextMinor().nextMinor()), "after every backfill tx of the previous commit");
    assertEquals("4e672h", Watermark.parse("4e672g.05").nextMajor().toString());
  }

  @Test
  void nextMinorCountsBackfillTransactions() {
    Watermark commit = Watermark.parse("4e672g");
    assertEquals("4e672g.01", commit.nextMinor().toString());
    assertEquals("4e672g.02", commit.nextMinor().nextMinor().toString());
    assertEquals("4e672g.110", Watermark.of(commit.major(), BigInteger.valueOf(35)).nextMinor().toString());
    assertEquals(commit, commit.nextMinor().majorOnly());
  }

  @Test
  void parsesBothForms() {
    Watermark w = Watermark.parse("01.123");
    assertEquals(BigInteger.ONE, w.major());
    assertEquals(BigInteger.valueOf(75), w.minor());
    assertTrue(w.hasMinor());
    Watermark m = Watermark.parse("123");
    assertEquals(BigInteger.valueOf(75), m.major());
    assertNull(m.minor());
    assertFalse(m.hasMinor());
  }

  @ParameterizedTest
  @ValueSource(strings = {"", ".", "01.", ".01", "01.02.03", "0A", "01..02", "4e672g.", "x"})
  void rejectsMalformedWatermarksNamingThem(String bad) {
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> Watermark.parse(bad));
    assertTrue(e.getMessage().contains("\"" + bad + "\""), e.getMessage());
  }

  /** zero-reference.md §3.3: "no minor" sorts before minor 0. */
  @Test
  void sortsTheReferenceExample() {
    List<String> expected = List.of("0c", "0c.00", "0c.01", "0d", "0z.05", "110");
    List<Watermark> shuffled = new ArrayList<>(expected.stream().map(Watermark::parse).toList());
    Collections.shuffle(shuffled, new Random(1));
    Collections.sort(shuffled);
    assertEquals(expected, shuffled.stream().map(Watermark::toString).toList());
  }

  /** Property: for random major.minor pairs, string order equals (major, minor) order; round-trips. */
  @Test
  void stringOrderEqualsNumericOrderForRandomPairs() {
    Random random = new Random(42);
    for (int i = 0; i < 100_000; i++) {
      Watermark a = random(random);
      Watermark b = random(random);
      assertEquals(Integer.signum(numericCompare(a, b)), Integer.signum(a.toString().compareTo(b.toString())),
          () -> a + " vs " + b);
      assertEquals(a, Watermark.parse(a.toString()));
      assertEquals(a.major(), Watermark.parse(a.toString()).major());
      assertEquals(a.minor(), Watermark.parse(a.toString()).minor());
    }
  }

  private static Watermark random(Random random) {
    // Small ranges make equal majors common, so the minor part gets exercised.
    BigInteger major = random.nextBoolean() ? BigInteger.valueOf(random.nextInt(50))
        : LexiVersionTest.randomUnsigned64(random);
    return switch (random.nextInt(3)) {
      case 0 -> Watermark.of(major);
      case 1 -> Watermark.of(major, BigInteger.valueOf(random.nextInt(50)));
      default -> Watermark.of(major, LexiVersionTest.randomUnsigned64(random));
    };
  }

  private static int numericCompare(Watermark a, Watermark b) {
    int c = a.major().compareTo(b.major());
    if (c != 0) {
      return c;
    }
    if (a.minor() == null || b.minor() == null) {
      return Boolean.compare(a.minor() != null, b.minor() != null);
    }
    return a.minor().compareTo(b.minor());
  }
}
