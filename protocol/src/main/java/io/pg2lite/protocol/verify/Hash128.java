package io.pg2lite.protocol.verify;

/** 128 bits of a hash, as two longs: {@code high} the first 8 bytes, {@code low} the next 8. */
public record Hash128(long high, long low) {
  /** The first 64 bits as a non-negative bucket selector: {@code high} without its sign. */
  public long selector() {
    return high & Long.MAX_VALUE;
  }
}
