package io.pg2lite.source.transaction;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.kafka.connect.storage.OffsetStorageReader;

/**
 * The source partition under which the source stores its offsets.
 *
 * <p>Connect finds stored offsets by the <em>serialized</em> partition map (JSON through the
 * worker's internal converter), so the map's iteration order is part of the key. An unordered
 * map (such as {@code Map.of}, whose order changes from one JVM run to the next) stores offsets
 * under different keys after different restarts, and a restart that looks under the other key
 * finds nothing. The partition is therefore always built in one fixed order: {@code database},
 * then {@code slot}.
 *
 * <p>Versions before this fix may have stored offsets under the reversed order. {@link #stored}
 * reads both keys and keeps the newer (highest watermark), so an existing connector keeps its
 * lineage; from then on everything is written under the canonical key.
 */
public final class SourcePartition {
  static final String DATABASE = "database";
  static final String SLOT = "slot";

  private final Map<String, String> canonical;
  private final Map<String, String> legacy;

  public SourcePartition(String database, String slot) {
    this.canonical = ordered(DATABASE, database, SLOT, slot);
    this.legacy = ordered(SLOT, slot, DATABASE, database);
  }

  private static Map<String, String> ordered(String k1, String v1, String k2, String v2) {
    Map<String, String> m = new LinkedHashMap<>();
    m.put(k1, v1);
    m.put(k2, v2);
    return Collections.unmodifiableMap(m);
  }

  /** The partition every record is written under; its iteration order never changes. */
  public Map<String, String> map() {
    return canonical;
  }

  /**
   * The newest offsets stored for this source under either key order, or null when none is
   * stored. "Newest" is the higher watermark (watermarks compare as strings).
   */
  public Map<String, Object> stored(OffsetStorageReader reader) {
    Map<String, Object> best = null;
    // One look-up per key order: the two maps are equal as Maps (equality ignores order), so a
    // single offsets(...) call would return one answer for both.
    for (Map<String, String> key : List.of(canonical, legacy)) {
      Map<String, Object> offset = reader.offset(key);
      if (offset != null && (best == null || watermark(offset).compareTo(watermark(best)) > 0)) {
        best = offset;
      }
    }
    return best;
  }

  private static String watermark(Map<String, Object> offset) {
    Object w = offset.get(SourcePosition.WATERMARK);
    return w == null ? "" : w.toString();
  }
}
