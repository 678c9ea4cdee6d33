package io.pg2lite.source.debezium;

import java.util.HashMap;
import java.util.Map;

/**
 * Debezium's resume position, stored inside pg2lite's own source offsets under a key prefix.
 *
 * <p>pg2lite's offsets hold its watermark state next to Debezium's position, in one map, so
 * Connect writes both atomically. Debezium reads its part back through
 * {@link PrefixedOffsetReader}: on start (where to resume) and in {@code performCommit}
 * (which LSN to confirm to Postgres).
 */
public final class DebeziumOffsets {
  /** Keys of Debezium's position inside pg2lite's offset map start with this. */
  public static final String PREFIX = "dbz.";

  private DebeziumOffsets() {}

  /** Debezium's position, prefixed for storage in pg2lite's offsets. */
  public static Map<String, Object> wrap(Map<String, ?> debeziumOffset) {
    Map<String, Object> out = new HashMap<>();
    debeziumOffset.forEach((k, v) -> out.put(PREFIX + k, v));
    return out;
  }

  /** Debezium's position out of pg2lite's offsets, or null when none is stored. */
  public static Map<String, Object> unwrap(Map<String, ?> stored) {
    if (stored == null) {
      return null;
    }
    Map<String, Object> out = new HashMap<>();
    stored.forEach((k, v) -> {
      if (k.startsWith(PREFIX)) {
        out.put(k.substring(PREFIX.length()), v);
      }
    });
    return out.isEmpty() ? null : out;
  }
}
