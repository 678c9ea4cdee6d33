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
  /** True when the log ends between a begin and its commit or rollback (a crash inside a transaction). */
  public boolean insideTransaction() {
    return entry.kind() == MessageKind.BEGIN || entry.kind() == MessageKind.DATA;
  }
}
