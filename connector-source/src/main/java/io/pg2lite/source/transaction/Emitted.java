package io.pg2lite.source.transaction;

import io.pg2lite.protocol.message.ChangeLogEntry;

/**
 * One record the source writes. A change-log record has an {@code entry}; a heartbeat (only a
 * new position, no change) has none. {@code endsTransaction} marks where a Kafka transaction may
 * commit in exactly-once mode: after an upstream commit, a rollback, or a heartbeat.
 */
public record Emitted(ChangeLogEntry entry, SourcePosition position, boolean endsTransaction) {
  public boolean isHeartbeat() {
    return entry == null;
  }
}
