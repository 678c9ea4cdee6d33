package io.pg2lite.protocol.message;

/**
 * One protocol message: the payload of one change-log record.
 *
 * <p>A transaction is {@code begin, change*, commit} or {@code begin, change*, rollback}; a change
 * outside a transaction, or a begin inside one, is a protocol violation. Every handler switches
 * over this sealed hierarchy exhaustively, so a new message kind cannot be silently ignored.
 */
public sealed interface Message permits Begin, Commit, Rollback, Change {
  /** The record-level kind of this message. */
  MessageKind kind();

  /** The wire tag, e.g. {@code "begin"} or {@code "insert"}. */
  String tag();
}
