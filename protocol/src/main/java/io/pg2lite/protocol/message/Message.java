package io.pg2lite.protocol.message;

/**
 * One protocol message: the payload of one change-log record.
 *
 * <p>A transaction is {@code begin, change*, commit} or {@code begin, change*, rollback}; a change
 * outside a transaction, or a begin inside one, is a protocol violation.
 *
 * <p>The hierarchy is sealed, but Java 17 (the plugins' baseline) has no pattern matching for
 * {@code switch}, so the compiler cannot check that a handler covers every kind. Handlers are
 * {@code instanceof} chains that end in an {@code IllegalStateException("unhandled …")}: a kind a
 * handler forgets fails loudly on its first record, never passes silently. Adding a kind means
 * finding those chains (search for "unhandled").
 */
public sealed interface Message permits Begin, Commit, Rollback, Change, Part {
  /** The record-level kind of this message. */
  MessageKind kind();

  /** The wire tag, e.g. {@code "begin"} or {@code "insert"}. */
  String tag();
}
