package io.pg2lite.protocol.message;

import java.util.Objects;

/**
 * One piece of a data message too large for one Kafka record (docs/protocol.md, "Large
 * messages"). The message's JSON text is cut into {@code count} pieces, written as consecutive
 * records that all carry the watermark and {@code pos} of the message they form; joined in
 * {@code index} order they are that JSON, {@code size} UTF-8 bytes long.
 *
 * <p>A part is not a change: a commit's {@code changes} counts the joined message once. Nothing
 * but a {@code rollback} may come between the parts of one message (a source that restarted in
 * the middle closes the transaction, then sends it again whole).
 *
 * @param index this piece's place, 0 to {@code count - 1}
 * @param count how many pieces the message has, at least 2
 * @param size the byte length of the whole message's UTF-8 JSON
 * @param text this piece of that JSON; pieces are cut between characters, never inside one
 */
public record Part(int index, int count, long size, String text) implements Message {
  public Part {
    Objects.requireNonNull(text, "text");
    if (count < 2) {
      throw new IllegalArgumentException("a split message has at least 2 parts, not " + count);
    }
    if (index < 0 || index >= count) {
      throw new IllegalArgumentException("part index " + index + " outside 0.." + (count - 1));
    }
    if (size < 0) {
      throw new IllegalArgumentException("size must not be negative: " + size);
    }
  }

  @Override
  public MessageKind kind() {
    return MessageKind.DATA;
  }

  @Override
  public String tag() {
    return "part";
  }

  /** Pieces can be large: the text is summarized, not printed. */
  @Override
  public String toString() {
    return "Part[" + index + "/" + count + ", size=" + size + ", " + text.length() + " chars]";
  }
}
