package io.pg2lite.replica.changelog;

import io.pg2lite.protocol.watermark.Watermark;
import io.pg2lite.replica.lite.Json;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.TreeMap;

/**
 * {@code {"column": "watermark", ...}}: per hidden column, the watermark of the last change that
 * wrote it. Keys are written sorted, so one set of versions always has one text.
 */
final class ColumnVersions {
  private ColumnVersions() {}

  static Map<String, Watermark> parse(String json) {
    Map<String, Watermark> out = new LinkedHashMap<>();
    Json.stringMap(json).forEach((column, version) -> out.put(column, Watermark.parse(version)));
    return out;
  }

  static String format(Map<String, Watermark> versions) {
    Map<String, String> text = new TreeMap<>();
    versions.forEach((column, version) -> text.put(column, version.toString()));
    return Json.stringMap(text);
  }
}
