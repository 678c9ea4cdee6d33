package io.pg2lite.protocol.parts;

import java.io.OutputStream;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * The encoding of an entry in segments of 1 MiB: it grows without copying what it holds (a byte
 * array doubling on the way to N bytes holds up to 2.5 N at once), and segments every part has
 * been cut from are released ({@link #releaseBefore}), so a large message's encoding shrinks as
 * its parts go out.
 */
public final class SegmentedBytes extends OutputStream {
  static final int SEGMENT_BITS = 20;
  static final int SEGMENT = 1 << SEGMENT_BITS;
  private final List<byte[]> segments = new ArrayList<>();
  private byte[] current;
  private int used = SEGMENT;
  private long size;

  @Override
  public void write(int b) {
    if (used == SEGMENT) {
      next();
    }
    current[used++] = (byte) b;
    size++;
  }

  @Override
  public void write(byte[] b, int off, int len) {
    while (len > 0) {
      if (used == SEGMENT) {
        next();
      }
      int n = Math.min(len, SEGMENT - used);
      System.arraycopy(b, off, current, used, n);
      used += n;
      off += n;
      len -= n;
      size += n;
    }
  }

  /**
   * Empties the buffer for the next entry, keeping its first segment: a writer that encodes
   * entry after entry allocates nothing for those that fit one segment.
   */
  public void reset() {
    byte[] first = segments.isEmpty() || segments.get(0) == null ? new byte[SEGMENT] : segments.get(0);
    segments.clear();
    segments.add(first);
    current = first;
    used = 0;
    size = 0;
  }

  private void next() {
    current = new byte[SEGMENT];
    segments.add(current);
    used = 0;
  }

  long size() {
    return size;
  }

  byte get(long i) {
    return segments.get((int) (i >>> SEGMENT_BITS))[(int) (i & (SEGMENT - 1))];
  }

  /** {@code len} bytes from {@code from}, in one array. */
  byte[] copy(long from, int len) {
    byte[] out = new byte[len];
    int done = 0;
    while (done < len) {
      long at = from + done;
      byte[] seg = segments.get((int) (at >>> SEGMENT_BITS));
      int off = (int) (at & (SEGMENT - 1));
      int n = Math.min(len - done, SEGMENT - off);
      System.arraycopy(seg, off, out, done, n);
      done += n;
    }
    return out;
  }

  /** Drops the segments that lie wholly before {@code position}: nothing will read them again. */
  void releaseBefore(long position) {
    int whole = (int) (position >>> SEGMENT_BITS);
    for (int s = 0; s < whole && s < segments.size(); s++) {
      segments.set(s, null);
    }
  }

  /** The whole content in one array (for an entry small enough to be one record). */
  @SuppressWarnings("java:S1168")
  byte[] toByteArray() {
    byte[] out = new byte[(int) size];
    int done = 0;
    for (byte[] seg : segments) {
      int n = (int) Math.min(SEGMENT, size - done);
      System.arraycopy(seg, 0, out, done, n);
      done += n;
    }
    return out;
  }

  /** Whether the first bytes are {@code prefix}. */
  boolean startsWith(byte[] prefix) {
    return size >= prefix.length && !segments.isEmpty()
        && Arrays.equals(segments.get(0), 0, prefix.length, prefix, 0, prefix.length);
  }
}
