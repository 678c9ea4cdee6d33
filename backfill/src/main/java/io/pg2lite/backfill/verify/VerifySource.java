package io.pg2lite.backfill.verify;

/** Where a verification reads a table: for Postgres, a snapshot at an exact LSN of its own. */
public interface VerifySource {
  /**
   * Takes a snapshot for {@code table} and validates the table against it (blocking: a snapshot
   * waits for the transactions running when it is asked for).
   *
   * @throws io.pg2lite.backfill.state.SchemaIncompatibilityException when the table in the
   *     snapshot is not the one the change log describes
   */
  TableSnapshot open(VerifyTable table) throws Exception;
}
