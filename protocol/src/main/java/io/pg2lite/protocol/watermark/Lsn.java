package io.pg2lite.protocol.watermark;

import java.util.Locale;

/**
 * A Postgres log sequence number: an unsigned 64-bit WAL position, written {@code H/L} in hex.
 *
 * <p>Held as a {@code long} compared unsigned, so positions past 2^63 (never seen in practice,
 * but valid) still order correctly. Parsing accepts upper or lower case and zero-padded halves
 * ({@code 00000016/B374D848}, as pgoutput prints them); {@link #toString()} prints upper-case
 * hex without padding, as Postgres does.
 */
public record Lsn(long value) implements Comparable<Lsn> {
  public static final Lsn ZERO = new Lsn(0);

  /** Parses {@code H/L} with 1 to 8 hex digits on each side. */
  public static Lsn parse(String text) {
    if (text == null) {
      throw new IllegalArgumentException("LSN cannot be null");
    }
    int slash = text.indexOf('/');
    if (slash < 1 || slash > 8 || slash == text.length() - 1 || text.length() - slash - 1 > 8) {
      throw new IllegalArgumentException("Malformed LSN \"" + text
          + "\": expected H/L with 1 to 8 hex digits on each side");
    }
    long high = hex(text, 0, slash);
    long low = hex(text, slash + 1, text.length());
    return new Lsn((high << 32) | low);
  }

  private static long hex(String text, int from, int to) {
    long v = 0;
    for (int i = from; i < to; i++) {
      char c = text.charAt(i);
      int d = c < 128 ? Character.digit(c, 16) : -1; // ASCII only: no full-width digits
      if (d < 0) {
        throw new IllegalArgumentException("Malformed LSN \"" + text + "\": '" + text.charAt(i)
            + "' at position " + i + " is not a hex digit");
      }
      v = (v << 4) | d;
    }
    return v;
  }

  @Override
  public int compareTo(Lsn other) {
    return Long.compareUnsigned(value, other.value);
  }

  @Override
  public String toString() {
    return Long.toHexString(value >>> 32).toUpperCase(Locale.ROOT) + "/"
        + Long.toHexString(value & 0xFFFFFFFFL).toUpperCase(Locale.ROOT);
  }
}
