package io.pg2lite.backfill.state;

/**
 * A non-empty table without a row key cannot be copied: a retried copy would duplicate its rows
 * on the replica. Retried with backoff; it succeeds once the table gets a primary key (or a
 * unique index) or is emptied.
 */
public final class MissingRowKeyException extends RuntimeException {
  public MissingRowKeyException(String table) {
    super("cannot backfill " + table + ": it has rows but no row key (primary key or unique index over NOT NULL "
        + "columns); add one and the backfill resumes");
  }
}
