package io.pg2lite.sink.replica;

import io.pg2lite.protocol.schema.TableMetadata;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/** The small JSON texts the replica's metadata tables hold. */
final class Json {
  private Json() {}

  static String stringList(List<String> values) {
    StringBuilder sb = new StringBuilder("[");
    for (String v : values) {
      sb.append(sb.length() == 1 ? "" : ",").append(quote(v));
    }
    return sb.append(']').toString();
  }

  static List<String> stringList(String json) {
    List<String> out = new ArrayList<>();
    int i = json.indexOf('[') + 1;
    while (i < json.length()) {
      char ch = json.charAt(i);
      if (ch == '"') {
        StringBuilder sb = new StringBuilder();
        i++;
        while (json.charAt(i) != '"') {
          if (json.charAt(i) == '\\') {
            i++;
          }
          sb.append(json.charAt(i++));
        }
        out.add(sb.toString());
      }
      i++;
    }
    return out;
  }

  static String metadata(TableMetadata m) {
    StringBuilder sb = new StringBuilder("{\"schemaOID\":").append(m.schemaOid()).append(",\"relationOID\":")
        .append(m.relationOid()).append(",\"rowKey\":{");
    boolean first = true;
    for (Map.Entry<String, Integer> e : m.rowKey().entrySet()) {
      sb.append(first ? "" : ",").append(quote(e.getKey())).append(":{\"attNum\":").append(e.getValue()).append('}');
      first = false;
    }
    return sb.append("}}").toString();
  }

  static String quote(String s) {
    return '"' + s.replace("\\", "\\\\").replace("\"", "\\\"") + '"';
  }
}
