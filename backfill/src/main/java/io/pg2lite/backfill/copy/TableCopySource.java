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

  /**
   * As {@link #open(BackfillRequest)}; with {@code mayShareSnapshot}, the copy may read the
   * snapshot earlier copies read, which the caller allows only when the request was required, as
   * it is now, before that snapshot was asked for (BackfillStream): a snapshot older than the
   * request could miss rows written before its table was published, which no stream carries.
   * Without it, or when sharing is not worth it, a new snapshot is taken.
   */
  default TableCopy open(BackfillRequest request, boolean mayShareSnapshot) throws Exception {
    return open(request);
  }

  /** Ends a snapshot kept for sharing, if any (no copy is open on it, none will be). */
  default void release() {}

  /** Ends a snapshot kept for sharing if it is too old to be shared (no copy is open on it). */
  default void releaseIfOld() {}
}
