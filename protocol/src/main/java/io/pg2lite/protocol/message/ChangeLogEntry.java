package io.pg2lite.protocol.message;

import io.pg2lite.protocol.watermark.Watermark;
import java.util.Objects;

/**
 * One record of the change log: a message and its place in the total order.
 *
 * <p>Watermark rules (docs/protocol.md): a commit carries the LexiVersion of its commit LSN;
 * begin and changes carry the transaction's pre-commit watermark (previous commit watermark's
 * major + 1), with {@code pos} 0 for the begin and 1, 2, ... for the changes; a commit carries
 * pos = changes + 1. Backfill transactions carry {@code M.k} on every record. Invariant:
 * previous commit &lt; pre-commit watermark &lt;= own commit watermark, so {@code (watermark, pos)}
 * orders the log and a consumer at watermark R drops a transaction iff its begin's watermark
 * is {@code <= R}.
 */
public record ChangeLogEntry(Watermark watermark, long pos, Message message) {
  /** The protocol version this code writes and reads. */
  public static final int PROTOCOL_VERSION = 1;

  public ChangeLogEntry {
    Objects.requireNonNull(watermark, "watermark");
    Objects.requireNonNull(message, "message");
    if (pos < 0) {
      throw new IllegalArgumentException("pos must not be negative: " + pos);
    }
  }

  public MessageKind kind() {
    return message.kind();
  }
}
