package io.pg2lite.source.kafka;

import io.pg2lite.protocol.message.ChangeLogEntry;
import io.pg2lite.protocol.message.MessageKind;
import io.pg2lite.protocol.watermark.Watermark;

/**
 * The last committed record of the change log, as the source reads it on start.
 *
 * @param replicaVersion the lineage the record belongs to (its replica-version header), or null
 *     for a record written without one
 */
public record LogTail(ChangeLogEntry entry, Watermark replicaVersion) {
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
