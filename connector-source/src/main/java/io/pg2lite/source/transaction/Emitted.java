package io.pg2lite.source.transaction;

import io.pg2lite.protocol.message.ChangeLogEntry;
import io.pg2lite.source.schema.RecordedSchema;

/**
 * One record the source writes: a change-log record (an {@code entry}), a heartbeat (only a new
 * position, no change), or a schema record ({@code schema}: the tracked schema as of a commit,
 * for restarts, ADR 0028). {@code endsTransaction} marks where a Kafka transaction may commit in
 * exactly-once mode: after an upstream commit, a rollback, or a heartbeat.
 */
public record Emitted(ChangeLogEntry entry, SourcePosition position, boolean endsTransaction, RecordedSchema schema) {
  public Emitted(ChangeLogEntry entry, SourcePosition position, boolean endsTransaction) {
    this(entry, position, endsTransaction, null);
  }

  /** A schema record, written before the commit it belongs to (in the same Kafka transaction). */
  public static Emitted schema(RecordedSchema schema, SourcePosition position) {
    return new Emitted(null, position, false, schema);
  }

  public boolean isHeartbeat() {
    return entry == null && schema == null;
  }

  public boolean isSchema() {
    return schema != null;
  }

  public Emitted withPosition(SourcePosition p) {
    return p == position ? this : new Emitted(entry, p, endsTransaction, schema);
  }
}
