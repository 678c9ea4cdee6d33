package io.pg2lite.backfill.state;

/**
 * The table in the snapshot is not the table the request describes (renamed, dropped, recreated,
 * another row key, a column missing or moved). The schema change that caused it is in the stream
 * and will update or remove the request, so a retry normally succeeds.
 */
public final class SchemaIncompatibilityException extends RuntimeException {
  public SchemaIncompatibilityException(String message) {
    super(message);
  }

  public SchemaIncompatibilityException(String message, Throwable cause) {
    super(message, cause);
  }
}
