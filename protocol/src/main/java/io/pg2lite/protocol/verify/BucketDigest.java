package io.pg2lite.protocol.verify;

import java.util.HexFormat;
import java.util.Objects;

/**
 * The digest of a set of rows: how many, and the sum of their {@link RowHash}es modulo 2^128. A
 * sum, so rows may be added in any order and one added by mistake can be taken out again
 * ({@link #minus}), which is how the source leaves out rows changed while it read (ADR 0040).
 * A mutable accumulator; {@link #equals} compares count and sum.
 */
public final class BucketDigest {
  private long count;
  private long high;
  private long low;

  public BucketDigest() {}

  /** A digest as read from the change log: {@code sum} is 32 hexadecimal digits. */
  public static BucketDigest of(long count, String sum) {
    if (sum.length() != 32) {
      throw new IllegalArgumentException("a digest sum is 32 hexadecimal digits: " + sum);
    }
    BucketDigest d = new BucketDigest();
    d.count = count;
    d.high = HexFormat.fromHexDigitsToLong(sum, 0, 16);
    d.low = HexFormat.fromHexDigitsToLong(sum, 16, 32);
    return d;
  }

  public BucketDigest plus(Hash128 h) {
    long sumLow = low + h.low();
    high += h.high() + (Long.compareUnsigned(sumLow, low) < 0 ? 1 : 0);
    low = sumLow;
    count++;
    return this;
  }

  public BucketDigest minus(Hash128 h) {
    long diffLow = low - h.low();
    high -= h.high() + (Long.compareUnsigned(low, h.low()) < 0 ? 1 : 0);
    low = diffLow;
    count--;
    return this;
  }

  public long count() {
    return count;
  }

  /** The sum as 32 lower-case hexadecimal digits. */
  public String sum() {
    HexFormat hex = HexFormat.of();
    return hex.toHexDigits(high) + hex.toHexDigits(low);
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof BucketDigest d && d.count == count && d.high == high && d.low == low;
  }

  @Override
  public int hashCode() {
    return Objects.hash(count, high, low);
  }

  @Override
  public String toString() {
    return count + " rows, sum " + sum();
  }
}
