package io.pg2lite.protocol.parts;

import io.pg2lite.protocol.codec.ChangeLogCodec;
import io.pg2lite.protocol.message.ChangeLogEntry;
import io.pg2lite.protocol.watermark.Watermark;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.NoSuchElementException;

/**
 * The record values of one change-log entry: its encoding when that fits {@code limit} bytes,
 * else the values of the {@link io.pg2lite.protocol.message.Part}s its message is cut into, made
 * one at a time as they are taken ({@link #next()}), so a writer holds the entry's encoding and
 * one part, never all of them.
 *
 * <p>Cuts: the message's UTF-8 JSON is cut so that every part's record value, its text escaped
 * as a JSON string ({@code "} and {@code \} take two bytes), is at most {@code limit} bytes; a
 * cut never falls inside a character's bytes, so every part's text is valid UTF-8 on its own.
 */
public final class RecordValues {
  /**
   * The most bytes a part's record takes besides its text: the envelope with the longest
   * watermark ({@code M.k}, two 13-character LexiVersions), a 19-digit pos and size, and
   * 10-digit index and count. Generous on purpose: a part that would not fit must never be made.
   */
  static final int PART_OVERHEAD = 200;
  /** A limit below this leaves parts too small to be sensible. */
  public static final int MIN_LIMIT = 4 * PART_OVERHEAD;

  private final ChangeLogCodec codec;
  /** The entry's place; the entry itself is not kept, so its values can go before its last part. */
  private final Watermark watermark;
  private final long pos;
  /** The one record's value when the entry fits; null when it is split. */
  private final byte[] whole;
  /** The entry's encoding when it is split, released segment by segment as parts are made. */
  private final SegmentedBytes encoded;
  /** Part i is {@code encoded[cuts[i], cuts[i+1])}; null when the entry is one record. */
  private final long[] cuts;
  private final long messageSize;
  private int next;

  private RecordValues(ChangeLogCodec codec, ChangeLogEntry entry, byte[] whole, SegmentedBytes encoded,
      long[] cuts, long messageSize) {
    this.codec = codec;
    this.watermark = entry.watermark();
    this.pos = entry.pos();
    this.whole = whole;
    this.encoded = encoded;
    this.cuts = cuts;
    this.messageSize = messageSize;
  }

  /**
   * The record values of {@code entry}, each at most {@code limit} bytes. Only data messages are
   * ever split: a begin, commit or rollback is small whatever the transaction.
   */
  public static RecordValues of(ChangeLogCodec codec, ChangeLogEntry entry, int limit) {
    return of(codec, entry, limit, new SegmentedBytes());
  }

  /**
   * As {@link #of(ChangeLogCodec, ChangeLogEntry, int)}, encoding into {@code scratch} (reset
   * first), which a writer reuses from entry to entry. A split entry keeps using it until its last
   * part is made: the writer encodes nothing else meanwhile.
   */
  public static RecordValues of(ChangeLogCodec codec, ChangeLogEntry entry, int limit, SegmentedBytes scratch) {
    if (limit < MIN_LIMIT) {
      throw new IllegalArgumentException("record limit " + limit + " is below " + MIN_LIMIT + " bytes");
    }
    SegmentedBytes encoded = scratch;
    encoded.reset();
    codec.encode(entry, encoded);
    if (encoded.size() <= limit) {
      return new RecordValues(codec, entry, encoded.toByteArray(), null, null, 0);
    }
    if (!(entry.message() instanceof io.pg2lite.protocol.message.Change)) {
      throw new IllegalStateException("a " + entry.message().tag() + " record of " + encoded.size()
          + " bytes exceeds the record limit of " + limit + " bytes");
    }
    long start = messageStart(entry, encoded);
    long end = encoded.size() - 1; // the entry's closing brace follows the message
    return new RecordValues(codec, entry, null, encoded, cut(encoded, start, end, limit - PART_OVERHEAD),
        end - start);
  }

  /**
   * Where the message starts: the writer puts it last, after {@code v}, {@code watermark} and
   * {@code pos}, each in its shortest form, so the prefix is known exactly (checked, not trusted).
   */
  private static long messageStart(ChangeLogEntry entry, SegmentedBytes encoded) {
    byte[] prefix = ("{\"v\":" + ChangeLogEntry.PROTOCOL_VERSION + ",\"watermark\":\"" + entry.watermark()
        + "\",\"pos\":" + entry.pos() + ",\"message\":").getBytes(StandardCharsets.US_ASCII);
    if (!encoded.startsWith(prefix) || encoded.get(encoded.size() - 1) != '}') {
      throw new IllegalStateException("the encoded entry does not have the layout the splitter expects");
    }
    return prefix.length;
  }

  /** Cut points of {@code bytes[start, end)} into runs whose escaped length is at most {@code budget}. */
  static long[] cut(SegmentedBytes bytes, long start, long end, int budget) {
    long[] cuts = new long[16];
    int n = 0;
    cuts[n++] = start;
    long i = start;
    while (i < end) {
      int cost = 0;
      long j = i;
      while (j < end) {
        byte b = bytes.get(j);
        int c = (b == '"' || b == '\\') ? 2 : 1;
        if (cost + c > budget) {
          break;
        }
        cost += c;
        j++;
      }
      while (j < end && j > i && (bytes.get(j) & 0xC0) == 0x80) {
        j--; // never inside a character: back to its first byte
      }
      if (n == cuts.length) {
        cuts = Arrays.copyOf(cuts, n * 2);
      }
      cuts[n++] = j;
      i = j;
    }
    return Arrays.copyOf(cuts, n);
  }

  /** How many records the entry takes: 1, or its part count. */
  public int count() {
    return cuts == null ? 1 : cuts.length - 1;
  }

  /** Whether the entry was cut into parts. */
  public boolean split() {
    return cuts != null;
  }

  public boolean hasNext() {
    return next < count();
  }

  /** The next record value, made now. */
  public byte[] next() {
    if (!hasNext()) {
      throw new NoSuchElementException();
    }
    int i = next++;
    if (cuts == null) {
      return whole;
    }
    int len = (int) (cuts[i + 1] - cuts[i]);
    byte[] piece = encoded.copy(cuts[i], len);
    encoded.releaseBefore(cuts[i + 1]);
    return codec.encodePart(watermark, pos, i, count(), messageSize, piece, 0, len);
  }
}
