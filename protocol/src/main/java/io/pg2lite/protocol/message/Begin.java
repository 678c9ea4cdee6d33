package io.pg2lite.protocol.message;

import java.time.Instant;

/**
 * Opens a transaction. The record's watermark is the transaction's pre-commit watermark and its
 * pos is 0.
 *
 * @param xid the upstream transaction id, or null for a backfill transaction
 * @param commitTime the upstream commit time (microsecond precision), or null when unknown
 * @param backfill true for a backfill transaction: it is not in the WAL, its watermark is
 *     {@code M.k}, and its commit is never acknowledged to Postgres
 * @param lineage on the first-start transaction of a lineage that replaces an earlier one in the
 *     same log: which one, and why (docs/protocol.md, "Lineage"); null on every other begin
 */
public record Begin(Long xid, Instant commitTime, boolean backfill, NewLineage lineage) implements Message {
  /** A begin that starts no new lineage. */
  public Begin(Long xid, Instant commitTime, boolean backfill) {
    this(xid, commitTime, backfill, null);
  }

  @Override
  public MessageKind kind() {
    return MessageKind.BEGIN;
  }

  @Override
  public String tag() {
    return "begin";
  }
}
