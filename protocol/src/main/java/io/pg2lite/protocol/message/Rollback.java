package io.pg2lite.protocol.message;

/**
 * Discards the open transaction. Written by the source on start when the topic ends inside an
 * unfinished transaction (a crash between begin and commit in at-least-once mode), so that the
 * topic never holds a begin inside an open transaction.
 *
 * @param reason why the transaction was abandoned, for humans; may be null
 */
public record Rollback(String reason) implements Message {
  @Override
  public MessageKind kind() {
    return MessageKind.ROLLBACK;
  }

  @Override
  public String tag() {
    return "rollback";
  }
}
