package io.pg2lite.protocol.watermark;

import java.math.BigInteger;
import java.util.Objects;

/**
 * A position in the change log: {@code major[.minor]}, each part a {@link LexiVersion}.
 *
 * <p>{@code major} follows the upstream WAL: a commit's watermark is the LexiVersion of its
 * commit LSN. {@code minor} exists only for backfill transactions, which are not in the WAL: the
 * k-th backfill transaction after commit {@code M} is {@code M.k}. Watermarks are compared as
 * plain strings; because {@code '.'} sorts before every digit, {@code M < M.1 < M.2 < M+1}.
 *
 * <p>Invariant: string order equals (major, minor) order, with "no minor" first. Every consumer
 * relies on it to drop transactions it has already applied: a transaction is skipped iff its
 * pre-commit watermark is {@code <=} the replica's watermark. The string is the identity of a
 * watermark; {@code equals}, {@code hashCode} and {@code compareTo} use it alone.
 */
public final class Watermark implements Comparable<Watermark> {
  private static final BigInteger TWO_64 = BigInteger.ONE.shiftLeft(64);

  private final BigInteger major;
  private final BigInteger minor; // null when absent
  private final String text;

  private Watermark(BigInteger major, BigInteger minor, String text) {
    this.major = major;
    this.minor = minor;
    this.text = text;
  }

  /** A watermark with no minor part. */
  public static Watermark of(BigInteger major) {
    return new Watermark(major, null, LexiVersion.encode(major));
  }

  /** A watermark with no minor part. */
  public static Watermark of(long major) {
    return of(BigInteger.valueOf(major));
  }

  /** A watermark with a minor part (a backfill transaction's). */
  public static Watermark of(BigInteger major, BigInteger minor) {
    Objects.requireNonNull(minor, "minor");
    return new Watermark(major, minor, LexiVersion.encode(major) + "." + LexiVersion.encode(minor));
  }

  /** The watermark of a commit at {@code lsn}. */
  public static Watermark fromLsn(Lsn lsn) {
    return of(new BigInteger(Long.toUnsignedString(lsn.value())));
  }

  /** The watermark of a commit at LSN text {@code H/L} (any case, zero-padded or not). */
  public static Watermark fromLsn(String lsn) {
    return fromLsn(Lsn.parse(lsn));
  }

  /** Parses {@code major} or {@code major.minor}; rejects anything else, naming the input. */
  public static Watermark parse(String text) {
    if (text == null) {
      throw new IllegalArgumentException("Watermark cannot be null");
    }
    int dot = text.indexOf('.');
    try {
      if (dot < 0) {
        return new Watermark(LexiVersion.decode(text), null, text);
      }
      if (text.indexOf('.', dot + 1) >= 0) {
        throw new IllegalArgumentException("more than one '.'");
      }
      return new Watermark(LexiVersion.decode(text.substring(0, dot)),
          LexiVersion.decode(text.substring(dot + 1)), text);
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException("Malformed watermark \"" + text + "\": " + e.getMessage(), e);
    }
  }

  public BigInteger major() {
    return major;
  }

  /** The minor part, or null for a main-stream watermark. */
  public BigInteger minor() {
    return minor;
  }

  public boolean hasMinor() {
    return minor != null;
  }

  /** The major part alone: the commit this watermark follows. */
  public Watermark majorOnly() {
    return minor == null ? this : of(major);
  }

  /**
   * The pre-commit watermark of the next transaction: {@code major + 1}, no minor. It sorts after
   * this watermark and after every backfill transaction {@code major.k}, and at or below the next
   * commit's watermark, whose LSN is strictly larger.
   */
  public Watermark nextMajor() {
    return of(major.add(BigInteger.ONE));
  }

  /** The watermark of the next backfill transaction: same major, minor + 1 (absent counts as 0). */
  public Watermark nextMinor() {
    return of(major, minor == null ? BigInteger.ONE : minor.add(BigInteger.ONE));
  }

  /** The LSN of the major part; fails for values outside the 64-bit LSN range. */
  public Lsn toLsn() {
    if (major.compareTo(TWO_64) >= 0) {
      throw new IllegalArgumentException("Watermark \"" + text + "\" is beyond the 64-bit LSN range");
    }
    return new Lsn(major.longValue());
  }

  @Override
  public int compareTo(Watermark other) {
    return text.compareTo(other.text);
  }

  public boolean isAfter(Watermark other) {
    return compareTo(other) > 0;
  }

  public boolean isAtOrBefore(Watermark other) {
    return compareTo(other) <= 0;
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof Watermark w && w.text.equals(text);
  }

  @Override
  public int hashCode() {
    return text.hashCode();
  }

  /** The string form: the watermark's identity on the wire and in every replica. */
  @Override
  public String toString() {
    return text;
  }
}
