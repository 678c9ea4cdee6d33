package io.pg2lite.source.kafka;

import java.util.Map;
import org.apache.kafka.connect.data.Schema;
import org.apache.kafka.connect.header.Headers;
import org.apache.kafka.connect.source.SourceRecord;

/**
 * A source record that is equal only to itself. Connect's exactly-once task looks every record
 * it dispatches up in the task's transaction context (two hash-set look-ups and two removals per
 * record, {@code WorkerTransactionContext.shouldCommitOn}/{@code shouldAbortOn}), and
 * {@link SourceRecord#hashCode} hashes the whole record: topic, partition and offset maps, every
 * header (the value's array only by identity). A profile put that at 7% of the source task's thread (ADR 0015).
 *
 * <p>Identity is also the meaning those look-ups need: {@code commitTransaction(record)} names
 * the very record the task returned, which Connect hands back unchanged (transformations make new
 * records, but the context is asked about the record before them). The task never returns two
 * records with equal content, so no caller could tell equal records apart anyway.
 */
final class ChangeLogRecord extends SourceRecord {
  ChangeLogRecord(Map<String, ?> partition, Map<String, ?> offset, String topic, Schema valueSchema, Object value,
      Headers headers) {
    super(partition, offset, topic, 0, null, null, valueSchema, value, null, headers);
  }

  @Override
  public boolean equals(Object o) {
    return this == o;
  }

  @Override
  public int hashCode() {
    return System.identityHashCode(this);
  }
}
