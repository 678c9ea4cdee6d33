package io.pg2lite.source.kafka;

import io.pg2lite.protocol.message.ChangeLogEntry;
import io.pg2lite.protocol.message.MessageKind;
import io.pg2lite.protocol.watermark.Watermark;

/**
 * The last committed record of the change log, as the source reads it on start.
 *
 * @param replicaVersion the lineage the record belongs to (its replica-version header), or null
 *     for a record written without one
 * @param seq the record's sequence number ({@link io.pg2lite.protocol.message.ChangeLogHeaders#SEQ}),
 *     or null for a record written without one
 * @param offset the record's Kafka offset
 */
public record LogTail(ChangeLogEntry entry, Watermark replicaVersion, Long seq, long offset) {
  /**
   * The sequence number of the next record the source writes: the tail's + 1. After a tail
   * written without numbers, its offset + 1: never below the number of any earlier record (a
   * record's number is at most its offset), so a new replica that finds only later records still
   * sees a gap.
   */
  public long nextSeq() {
    return seq != null ? seq + 1 : offset + 1;
  }

  /**
   * The pre-commit watermark of a live transaction the log ends in without its commit (the tail
   * is its begin or data, or the rollback that closed it), or null. The source writes that
   * transaction again under the same watermark; until then the log's last commit is unknown
   * (somewhere below it, possibly a backfill transaction's {@code M.k}), so no backfill
   * transaction may be written: one above the real last commit could land above the repeat's
   * begin, and consumers would then skip the repeat as already applied.
   */
  public Watermark cutLiveTransaction() {
    Watermark w = entry.watermark();
    return entry.kind() == MessageKind.COMMIT || w.hasMinor() ? null : w;
  }

  /** True when the log ends between a begin and its commit or rollback (a crash inside a transaction). */
  public boolean insideTransaction() {
    return entry.kind() == MessageKind.BEGIN || entry.kind() == MessageKind.DATA;
  }
}
