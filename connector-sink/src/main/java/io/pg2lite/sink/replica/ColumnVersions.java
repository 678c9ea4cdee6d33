package io.pg2lite.sink.replica;

import java.util.HashMap;
import java.util.Map;
import java.util.TreeMap;

/** {@code {"column": "watermark", ...}}: per hidden column, the watermark of the last change that wrote it. */
final class ColumnVersions {
  private ColumnVersions() {}

  static Map<String, String> parse(String json) {
    Map<String, String> out = new HashMap<>();
    int i = 0;
    while ((i = json.indexOf('"', i)) >= 0) {
      int end = closing(json, i + 1);
      String key = unescape(json.substring(i + 1, end));
      int v = json.indexOf('"', end + 1);
      int vEnd = closing(json, v + 1);
      out.put(key, unescape(json.substring(v + 1, vEnd)));
      i = vEnd + 1;
    }
    return out;
  }

  static String format(Map<String, String> versions) {
    StringBuilder sb = new StringBuilder("{");
    for (Map.Entry<String, String> e : new TreeMap<>(versions).entrySet()) {
      sb.append(sb.length() == 1 ? "" : ",").append(Json.quote(e.getKey())).append(':').append(Json.quote(e.getValue()));
    }
    return sb.append('}').toString();
  }

  private static int closing(String s, int from) {
    for (int i = from; i < s.length(); i++) {
      if (s.charAt(i) == '\\') {
        i++;
      } else if (s.charAt(i) == '"') {
        return i;
      }
    }
    throw new IllegalArgumentException("unterminated string in " + s);
  }

  private static String unescape(String s) {
    return s.replace("\\\"", "\"").replace("\\\\", "\\");
  }
}
