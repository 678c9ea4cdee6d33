package io.pg2lite.source.debezium;

import io.pg2lite.source.transaction.SourcePosition;
import java.util.Collection;
import java.util.HashMap;
import java.util.Map;
import java.util.function.Supplier;
import org.apache.kafka.connect.storage.OffsetStorageReader;

/**
 * The offset reader Debezium's task sees: whatever partition Debezium asks for, it answers with
 * Debezium's part of pg2lite's offsets under pg2lite's partition. The offsets come from
 * Connect's offset store, which holds only positions whose records Kafka has stored, so the LSN
 * Debezium confirms to Postgres from them is always durable in Kafka.
 */
final class PrefixedOffsetReader implements OffsetStorageReader {
  private volatile Supplier<Map<String, ?>> storedOffset;

  /** @param storedOffset reads pg2lite's offsets (null when none): where Debezium starts */
  PrefixedOffsetReader(Supplier<Map<String, ?>> storedOffset) {
    this.storedOffset = storedOffset;
  }

  /**
   * From now on answers from {@code offsets}: a task started from a position of its own (a
   * restart after a fault) acknowledges only what Connect stored.
   */
  void answerFrom(Supplier<Map<String, ?>> offsets) {
    this.storedOffset = offsets;
  }

  @Override
  public <T> Map<String, Object> offset(Map<String, T> debeziumPartition) {
    return SourcePosition.upstreamOf(storedOffset.get());
  }

  @Override
  public <T> Map<Map<String, T>, Map<String, Object>> offsets(Collection<Map<String, T>> partitions) {
    Map<String, Object> mine = SourcePosition.upstreamOf(storedOffset.get());
    Map<Map<String, T>, Map<String, Object>> out = new HashMap<>();
    for (Map<String, T> p : partitions) {
      out.put(p, mine);
    }
    return out;
  }
}
