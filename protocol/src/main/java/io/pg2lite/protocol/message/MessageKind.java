package io.pg2lite.protocol.message;

/** The four record kinds of the change log; every change tag is of kind {@link #DATA}. */
public enum MessageKind {
  BEGIN("begin"),
  DATA("data"),
  COMMIT("commit"),
  ROLLBACK("rollback");

  private final String wireName;

  MessageKind(String wireName) {
    this.wireName = wireName;
  }

  /** The name used in the {@code pg2lite.kind} record header. */
  public String wireName() {
    return wireName;
  }
}
