/**
 * The change log of rows ({@code _pg2lite.changes}): per row of a table still being backfilled,
 * its last operation and the commit watermark of the last change of each backfilling column. The
 * row writers record into it, the backfill merge reads it ({@link
 * io.pg2lite.replica.changelog.RowChangeLog}); it depends on neither.
 */
package io.pg2lite.replica.changelog;
