package io.pg2lite.sink.replica;

import java.util.Map;
import java.util.TreeMap;

/**
 * {@code {"column": "watermark", ...}}: per hidden column, the watermark of the last change that
 * wrote it. Keys are written sorted, so one set of versions always has one text.
 */
final class ColumnVersions {
  private ColumnVersions() {}

  static Map<String, String> parse(String json) {
    return Json.stringMap(json);
  }

  static String format(Map<String, String> versions) {
    return Json.stringMap(new TreeMap<>(versions));
  }
}
