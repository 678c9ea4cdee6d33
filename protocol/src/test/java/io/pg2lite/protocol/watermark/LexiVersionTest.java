package io.pg2lite.protocol.watermark;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.math.BigInteger;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

class LexiVersionTest {
  private static final BigInteger TWO_64 = BigInteger.ONE.shiftLeft(64);

  /** The worked examples of the reference (zero-reference.md §3.1). */
  @ParameterizedTest
  @CsvSource({
      "0, 00", "1, 01", "10, 0a", "35, 0z", "36, 110", "100, 12s", "1295, 1zz", "1296, 2100",
      "46655, 2zzz", "46656, 31000", "4294967296, 61z141z4", "97500059720, 718sh0nk8",
      "9007199254740991, a2gosa7pa2gv", "18446744073709551615, c3w5e11264sgsf",
      "18446744073709551616, c3w5e11264sgsg"})
  void encodesAndDecodesTheReferenceExamples(String n, String lexi) {
    BigInteger value = new BigInteger(n);
    assertEquals(lexi, LexiVersion.encode(value));
    assertEquals(value, LexiVersion.decode(lexi));
    if (value.bitLength() < 64) {
      assertEquals(lexi, LexiVersion.encode(value.longValue()));
      assertEquals(value.longValue(), LexiVersion.decodeLong(lexi));
    }
  }

  @Test
  void largestValueIsThirtySevenZs() {
    BigInteger max = LexiVersion.LIMIT.subtract(BigInteger.ONE);
    assertEquals("z".repeat(37), LexiVersion.encode(max));
    assertEquals(max, LexiVersion.decode("z".repeat(37)));
  }

  @Test
  void rejectsNegativeAndTooLargeValues() {
    IllegalArgumentException neg = assertThrows(IllegalArgumentException.class, () -> LexiVersion.encode(-1));
    assertTrue(neg.getMessage().contains("-1"), neg.getMessage());
    assertThrows(IllegalArgumentException.class, () -> LexiVersion.encode(BigInteger.valueOf(-5)));
    IllegalArgumentException big = assertThrows(IllegalArgumentException.class,
        () -> LexiVersion.encode(LexiVersion.LIMIT));
    assertTrue(big.getMessage().contains(LexiVersion.LIMIT.toString()), big.getMessage());
    assertThrows(IllegalArgumentException.class, () -> LexiVersion.encode((BigInteger) null));
  }

  @ParameterizedTest
  @ValueSource(strings = {"", "0", "1a", "0ab", "2zz", "0A", "0-", "1 a", "100", "0.", "zz"})
  void rejectsMalformedStringsNamingThem(String bad) {
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> LexiVersion.decode(bad));
    assertTrue(e.getMessage().contains("\"" + bad + "\""), e.getMessage());
  }

  @Test
  void decodeLongRejectsValuesBeyondSignedLong() {
    String twoTo64 = LexiVersion.encode(TWO_64);
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> LexiVersion.decodeLong(twoTo64));
    assertTrue(e.getMessage().contains(twoTo64));
  }

  /** Property: for random unsigned 64-bit values, string order equals numeric order, and round-trips. */
  @Test
  void stringOrderEqualsNumericOrderForRandom64BitValues() {
    Random random = new Random(20261129);
    for (int i = 0; i < 200_000; i++) {
      BigInteger a = randomUnsigned64(random);
      BigInteger b = randomUnsigned64(random);
      String la = LexiVersion.encode(a);
      String lb = LexiVersion.encode(b);
      assertEquals(Integer.signum(a.compareTo(b)), Integer.signum(la.compareTo(lb)), () -> a + " vs " + b);
      assertEquals(a, LexiVersion.decode(la));
      assertEquals(la, LexiVersion.encode(LexiVersion.decode(la)));
    }
  }

  /** Values are drawn with a random bit length, so small and large magnitudes are both common. */
  static BigInteger randomUnsigned64(Random random) {
    int bits = random.nextInt(65);
    BigInteger v = new BigInteger(bits, random);
    return v.min(TWO_64.subtract(BigInteger.ONE));
  }
}
