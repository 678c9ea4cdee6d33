package io.pg2lite.protocol.watermark;

import java.math.BigInteger;

/**
 * Encodes a non-negative integer as a string whose plain string order equals numeric order.
 *
 * <p>Format: one base-36 digit holding {@code len(b) - 1}, followed by {@code b}, the lower-case
 * base-36 digits of the value without leading zeros ({@code 0 -> "00"}, {@code 36 -> "110"}).
 * A longer value has a larger length digit, and values of equal length compare digit by digit,
 * so {@link String#compareTo} orders encodings numerically. The length digit caps values below
 * 36^36 (about 185 bits).
 *
 * <p>Invariant: {@code decode(encode(n)) == n} and {@code encode(decode(s)).equals(s)} for every
 * valid input; every other input is rejected with an {@link IllegalArgumentException} naming it.
 * The second half matters: if two different strings decoded to the same number, string order and
 * numeric order could disagree, and a consumer comparing watermarks as strings would skip data.
 */
public final class LexiVersion {
  /** Exclusive upper bound: 36^36. */
  public static final BigInteger LIMIT = BigInteger.valueOf(36).pow(36);

  private static final int RADIX = 36;
  /** 12 base-36 digits always fit a signed long (36^12 &lt; 2^63): the allocation-free path. */
  private static final int MAX_LONG_SAFE_DIGITS = 12;

  private LexiVersion() {}

  /** Encodes {@code n}; rejects negative values. */
  public static String encode(long n) {
    if (n < 0) {
      throw new IllegalArgumentException("LexiVersion cannot encode a negative value: " + n);
    }
    String digits = Long.toString(n, RADIX);
    return Character.forDigit(digits.length() - 1, RADIX) + digits;
  }

  /** Encodes {@code n}; rejects null, negative values and values of 36^36 or more. */
  public static String encode(BigInteger n) {
    if (n == null) {
      throw new IllegalArgumentException("LexiVersion cannot encode null");
    }
    if (n.signum() < 0) {
      throw new IllegalArgumentException("LexiVersion cannot encode a negative value: " + n);
    }
    if (n.compareTo(LIMIT) >= 0) {
      throw new IllegalArgumentException("LexiVersion cannot encode a value of 36^36 or more: " + n);
    }
    if (n.bitLength() < Long.SIZE) {
      return encode(n.longValue());
    }
    String digits = n.toString(RADIX);
    return Character.forDigit(digits.length() - 1, RADIX) + digits;
  }

  /** Decodes a LexiVersion string; rejects anything {@link #encode} would not produce. */
  public static BigInteger decode(String s) {
    int digits = checkedDigitCount(s);
    if (digits <= MAX_LONG_SAFE_DIGITS) {
      return BigInteger.valueOf(Long.parseLong(s, 1, s.length(), RADIX));
    }
    return new BigInteger(s.substring(1), RADIX);
  }

  /**
   * Decodes a LexiVersion known to fit a signed long; rejects larger values instead of
   * overflowing.
   */
  public static long decodeLong(String s) {
    int digits = checkedDigitCount(s);
    if (digits > MAX_LONG_SAFE_DIGITS) {
      BigInteger big = new BigInteger(s.substring(1), RADIX);
      if (big.bitLength() >= Long.SIZE) {
        throw new IllegalArgumentException("LexiVersion does not fit a signed 64-bit value: \"" + s + "\"");
      }
      return big.longValue();
    }
    return Long.parseLong(s, 1, s.length(), RADIX);
  }

  /** Validates {@code s} and returns the number of value digits after the length prefix. */
  private static int checkedDigitCount(String s) {
    if (s == null) {
      throw new IllegalArgumentException("LexiVersion cannot decode null");
    }
    if (s.length() < 2) {
      throw new IllegalArgumentException("Malformed LexiVersion \"" + s + "\": needs at least 2 characters");
    }
    int declared = digit(s, 0);
    int digits = s.length() - 1;
    if (declared + 1 != digits) {
      throw new IllegalArgumentException("Malformed LexiVersion \"" + s + "\": length prefix '"
          + s.charAt(0) + "' announces " + (declared + 1) + " digits but " + digits + " follow");
    }
    for (int i = 1; i < s.length(); i++) {
      digit(s, i);
    }
    if (digits > 1 && s.charAt(1) == '0') {
      throw new IllegalArgumentException("Malformed LexiVersion \"" + s + "\": leading zero");
    }
    return digits;
  }

  /** Only lower-case base-36 digits are valid: upper case would break the string order. */
  private static int digit(String s, int i) {
    char c = s.charAt(i);
    if (c >= '0' && c <= '9') {
      return c - '0';
    }
    if (c >= 'a' && c <= 'z') {
      return c - 'a' + 10;
    }
    throw new IllegalArgumentException("Malformed LexiVersion \"" + s + "\": '" + c
        + "' at position " + i + " is not a lower-case base-36 digit");
  }
}
