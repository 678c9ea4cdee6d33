package io.pg2lite.protocol.message;

/** A message inside a transaction: a row change or a schema change. */
public sealed interface Change extends Message permits DataChange, SchemaChange {
  @Override
  default MessageKind kind() {
    return MessageKind.DATA;
  }
}
