package io.pg2lite.protocol.codec;

/**
 * A change-log record that is not valid protocol: malformed JSON, an unknown tag, a missing or
 * mistyped field, trailing content. The message names the field as a JSON pointer
 * ({@code /message/relation/rowKey}), so an operator can find it in the record.
 */
public class ProtocolException extends RuntimeException {
  private static final long serialVersionUID = 1L;

  private final String field;

  public ProtocolException(String field, String detail) {
    this(field, detail, null);
  }

  public ProtocolException(String field, String detail, Throwable cause) {
    super("Invalid change-log record at " + (field == null || field.isEmpty() ? "/" : field) + ": " + detail, cause);
    this.field = field == null || field.isEmpty() ? "/" : field;
  }

  /** JSON pointer of the offending field ({@code /} for the record itself). */
  public String field() {
    return field;
  }
}
