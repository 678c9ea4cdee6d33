package io.pg2lite.replica.schema;

/**
 * How far a replica's tables are copied, from its metadata rows: {@code incomplete} of its
 * {@code tables} are still being copied whole ({@code _pg2lite.tables.copying}) or have a column
 * whose backfill has not completed ({@code _pg2lite.columns.backfill}).
 */
public record TableCopies(int tables, int incomplete) {
  /** Every table is whole: nothing the replica holds waits for a copy. */
  public boolean complete() {
    return incomplete == 0;
  }
}
