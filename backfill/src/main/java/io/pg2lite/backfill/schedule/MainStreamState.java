package io.pg2lite.backfill.schedule;

/** Where the main stream is when the backfill asks for a turn. */
public enum MainStreamState {
  /** Inside an upstream transaction: nothing may be interleaved, transactions are whole. */
  IN_TRANSACTION,
  /** Between transactions, with more changes waiting to be written. */
  BUSY,
  /** Between transactions, nothing waiting. */
  IDLE
}
