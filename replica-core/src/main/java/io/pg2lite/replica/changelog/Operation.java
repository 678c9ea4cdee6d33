package io.pg2lite.replica.changelog;

/**
 * A row's last operation as {@code _pg2lite.changes.op} stores it. The codes are part of the
 * replica file's format: never change one.
 */
public enum Operation {
  /** The row was inserted or updated: it exists, and the column versions say which change wrote what. */
  SET("s"),
  /** The row was deleted: a copy from an older snapshot must not bring it back. */
  DELETE("d"),
  /** The whole table was emptied (the record of {@link RowChangeLog#TRUNCATED}). */
  TRUNCATE("t");

  private final String code;

  Operation(String code) {
    this.code = code;
  }

  /** The stored code. */
  public String code() {
    return code;
  }

  /** The operation a stored code names. */
  public static Operation of(String code) {
    for (Operation op : values()) {
      if (op.code.equals(code)) {
        return op;
      }
    }
    throw new IllegalArgumentException("unknown operation \"" + code + "\" in _pg2lite.changes");
  }
}
