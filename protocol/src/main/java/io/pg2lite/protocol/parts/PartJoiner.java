package io.pg2lite.protocol.parts;

import io.pg2lite.protocol.codec.ChangeLogCodec;
import io.pg2lite.protocol.codec.ProtocolException;
import io.pg2lite.protocol.message.Change;
import io.pg2lite.protocol.message.ChangeLogEntry;
import io.pg2lite.protocol.message.Message;
import io.pg2lite.protocol.message.Part;
import io.pg2lite.protocol.message.Rollback;
import io.pg2lite.protocol.watermark.Watermark;
import java.nio.charset.StandardCharsets;

/**
 * Puts split messages together for a reader of the log (docs/protocol.md, "Large messages"):
 * every record's entry goes through {@link #accept}, which returns it as is, or null for a part,
 * and the whole message, with its parts' watermark and pos, at its last part.
 *
 * <p>Memory: the joined message's bytes only (allocated once, at its declared size); a part is
 * copied in and dropped, so a reader never holds more than the record it is reading besides.
 *
 * <p>Rules, each a {@link ProtocolException} naming what is wrong: parts come in index order from
 * 0, all with one watermark, pos, count and size, and their texts add up to that size; the joined
 * text is one data message. Nothing but a rollback may interrupt them: it discards the parts
 * (the transaction is sent again whole) and passes on. Not thread-safe: one joiner per log.
 */
public final class PartJoiner {
  private final ChangeLogCodec codec;
  private Watermark watermark;
  private long pos;
  private int count;
  private int nextIndex;
  private byte[] joined;
  private int filled;

  public PartJoiner(ChangeLogCodec codec) {
    this.codec = codec;
  }

  /** Whether a split message is half read. */
  public boolean joining() {
    return joined != null;
  }

  /** Forgets a half-read message (the reader rewound to before it). */
  public void reset() {
    joined = null;
    watermark = null;
    filled = 0;
    nextIndex = 0;
  }

  /** {@code e} itself, null while a split message is incomplete, or the whole message at its last part. */
  public ChangeLogEntry accept(ChangeLogEntry e) {
    if (!(e.message() instanceof Part p)) {
      if (joined != null) {
        if (e.message() instanceof Rollback) {
          reset();
          return e;
        }
        throw new ProtocolException("/message/tag", "a " + e.message().tag() + " record at " + e.watermark()
            + " (pos " + e.pos() + ") arrived after part " + (nextIndex - 1) + " of " + count
            + " of the message at pos " + pos + ": parts " + nextIndex + ".." + (count - 1) + " are missing");
      }
      return e;
    }
    if (joined == null) {
      start(e, p);
    } else {
      follow(e, p);
    }
    byte[] text = p.text().getBytes(StandardCharsets.UTF_8);
    if (text.length > joined.length - filled) {
      throw new ProtocolException("/message/text", "part " + p.index() + " of " + count + " brings the message past "
          + "its size of " + joined.length + " bytes");
    }
    System.arraycopy(text, 0, joined, filled, text.length);
    filled += text.length;
    nextIndex++;
    if (nextIndex < count) {
      return null;
    }
    if (filled != joined.length) {
      throw new ProtocolException("/message/size", "the " + count + " parts hold " + filled + " bytes, not the "
          + joined.length + " their size says");
    }
    byte[] whole = joined;
    Watermark w = watermark;
    long at = pos;
    reset();
    Message m = codec.decodeMessage(whole, 0, whole.length);
    if (!(m instanceof Change)) {
      throw new ProtocolException("/message/tag", "the parts join into a " + m.tag() + " message; only data "
          + "messages are split");
    }
    return new ChangeLogEntry(w, at, m);
  }

  private void start(ChangeLogEntry e, Part p) {
    if (p.index() != 0) {
      throw new ProtocolException("/message/index", "part " + p.index() + " of " + p.count() + " at " + e.watermark()
          + " (pos " + e.pos() + ") arrived without the parts before it");
    }
    if (p.size() > Integer.MAX_VALUE - 8) {
      throw new ProtocolException("/message/size", "a split message of " + p.size() + " bytes is larger than a "
          + "reader can hold (2 GB)");
    }
    watermark = e.watermark();
    pos = e.pos();
    count = p.count();
    joined = new byte[(int) p.size()];
    filled = 0;
    nextIndex = 0;
  }

  private void follow(ChangeLogEntry e, Part p) {
    if (!e.watermark().equals(watermark) || e.pos() != pos) {
      throw new ProtocolException("/message", "part " + p.index() + " at " + e.watermark() + " (pos " + e.pos()
          + ") arrived while the message at " + watermark + " (pos " + pos + ") has " + nextIndex + " of " + count
          + " parts");
    }
    if (p.index() != nextIndex || p.count() != count || p.size() != joined.length) {
      throw new ProtocolException("/message/index", "part " + p.index() + " of " + p.count() + " (size "
          + p.size() + ") arrived where part " + nextIndex + " of " + count + " (size " + joined.length
          + ") belongs: a record was lost or duplicated");
    }
  }
}
