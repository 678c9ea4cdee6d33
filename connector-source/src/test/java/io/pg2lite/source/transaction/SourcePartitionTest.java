package io.pg2lite.source.transaction;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import java.nio.ByteBuffer;
import java.util.Collection;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.kafka.connect.json.JsonConverter;
import org.apache.kafka.connect.storage.OffsetStorageReader;
import org.junit.jupiter.api.Test;

/** Issue 10, defect 2: offsets are found by the serialized partition, so its order must never change. */
class SourcePartitionTest {
  /**
   * Connect's offset store, reduced to what matters here: offsets are kept by the partition
   * serialized with the worker's internal JSON converter (schemas off), as OffsetStorageWriter
   * and OffsetStorageReaderImpl do.
   */
  static final class SerializedKeyStore implements OffsetStorageReader {
    private final JsonConverter json = new JsonConverter();
    private final Map<ByteBuffer, Map<String, Object>> offsets = new HashMap<>();

    SerializedKeyStore() {
      json.configure(Map.of("schemas.enable", "false", "converter.type", "key"));
    }

    private ByteBuffer key(Map<String, ?> partition) {
      return ByteBuffer.wrap(json.fromConnectData("", null, List.of("source", partition)));
    }

    void put(Map<String, ?> partition, Map<String, Object> offset) {
      offsets.put(key(partition), offset);
    }

    @Override
    public <T> Map<String, Object> offset(Map<String, T> partition) {
      return offsets.get(key(partition));
    }

    @Override
    public <T> Map<Map<String, T>, Map<String, Object>> offsets(Collection<Map<String, T>> partitions) {
      Map<Map<String, T>, Map<String, Object>> out = new HashMap<>();
      partitions.forEach(p -> out.put(p, offset(p)));
      return out;
    }
  }

  private static Map<String, String> ordered(String... kv) {
    Map<String, String> m = new LinkedHashMap<>();
    for (int i = 0; i < kv.length; i += 2) {
      m.put(kv[i], kv[i + 1]);
    }
    return m;
  }

  @Test
  void theStoreReallyDistinguishesKeyOrders() {
    SerializedKeyStore store = new SerializedKeyStore();
    store.put(ordered("slot", "s", "database", "db"), Map.of("watermark", "05"));
    assertNull(store.offset(ordered("database", "db", "slot", "s")),
        "the bug: offsets stored under one order are not found under the other");
  }

  @Test
  void thePartitionAlwaysSerializesInOneOrder() {
    SerializedKeyStore store = new SerializedKeyStore();
    store.put(new SourcePartition("db", "s").map(), Map.of("watermark", "05"));
    assertEquals(Map.of("watermark", "05"), store.offset(new SourcePartition("db", "s").map()));
    assertEquals(List.of("database", "slot"), List.copyOf(new SourcePartition("db", "s").map().keySet()));
  }

  @Test
  void offsetsStoredUnderTheReversedOrderAreStillFound() {
    SerializedKeyStore store = new SerializedKeyStore();
    store.put(ordered("slot", "s", "database", "db"), Map.of("watermark", "05"));
    assertEquals(Map.of("watermark", "05"), new SourcePartition("db", "s").stored(store));
  }

  @Test
  void whenBothOrdersHoldOffsetsTheNewerWins() {
    SerializedKeyStore store = new SerializedKeyStore();
    store.put(ordered("slot", "s", "database", "db"), Map.of("watermark", "4ga1v4"));
    store.put(ordered("database", "db", "slot", "s"), Map.of("watermark", "4gat5t"));
    assertEquals("4gat5t", new SourcePartition("db", "s").stored(store).get("watermark"));
    store.put(ordered("slot", "s", "database", "db"), Map.of("watermark", "4gb000"));
    assertEquals("4gb000", new SourcePartition("db", "s").stored(store).get("watermark"));
    assertNull(new SourcePartition("db", "other").stored(store));
  }
}
