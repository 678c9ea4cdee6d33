package io.pg2lite.backfill.copy;

import io.pg2lite.backfill.state.BackfillRequest;

/** Opens copies: for Postgres, a snapshot at an exact LSN validated against the request. */
public interface TableCopySource {
  /**
   * Takes a snapshot and validates the request against it.
   *
   * @throws io.pg2lite.backfill.state.SchemaIncompatibilityException when the table in the
   *     snapshot is not the one the request describes
   */
  TableCopy open(BackfillRequest request) throws Exception;
}
