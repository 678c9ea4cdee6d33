package io.pg2lite.protocol.message;

/** A message inside a transaction: a row change, a schema change, or a table's digests ({@link Verify}). */
public sealed interface Change extends Message permits DataChange, SchemaChange, Verify {
  @Override
  default MessageKind kind() {
    return MessageKind.DATA;
  }
}
