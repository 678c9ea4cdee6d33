package io.pg2lite.backfill.state;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.pg2lite.protocol.schema.BackfillId;
import io.pg2lite.protocol.schema.QualifiedName;
import io.pg2lite.protocol.schema.TableMetadata;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The required backfills as a JSON string, stored with the source's offsets so that they survive
 * a restart together with the log position they belong to:
 * {@code [{"schema":"public","name":"t","metadata":{"schemaOid":1,"relationOid":2,"rowKey":{"id":1}},"columns":{"v":2}}]}.
 */
public final class BackfillRequestsCodec {
  private static final ObjectMapper JSON = new ObjectMapper();

  private BackfillRequestsCodec() {}

  public static String encode(List<BackfillRequest> requests) {
    ArrayNode out = JSON.createArrayNode();
    for (BackfillRequest r : requests) {
      ObjectNode o = out.addObject();
      o.put("schema", r.table().schema());
      o.put("name", r.table().name());
      if (r.metadata() == null) {
        o.putNull("metadata");
      } else {
        ObjectNode m = o.putObject("metadata");
        m.put("schemaOid", r.metadata().schemaOid());
        m.put("relationOid", r.metadata().relationOid());
        ObjectNode key = m.putObject("rowKey");
        r.metadata().rowKey().forEach(key::put);
      }
      ObjectNode cols = o.putObject("columns");
      r.columns().forEach((c, id) -> cols.put(c, id.attNum()));
    }
    return out.toString();
  }

  public static List<BackfillRequest> decode(String json) {
    List<BackfillRequest> out = new ArrayList<>();
    try {
      for (JsonNode o : JSON.readTree(json)) {
        TableMetadata metadata = null;
        JsonNode m = o.path("metadata");
        if (m.isObject()) {
          Map<String, Integer> key = new LinkedHashMap<>();
          m.path("rowKey").fields().forEachRemaining(e -> key.put(e.getKey(), e.getValue().intValue()));
          metadata = new TableMetadata(m.path("schemaOid").longValue(), m.path("relationOid").longValue(), key);
        }
        Map<String, BackfillId> cols = new LinkedHashMap<>();
        for (Iterator<Map.Entry<String, JsonNode>> it = o.path("columns").fields(); it.hasNext(); ) {
          Map.Entry<String, JsonNode> e = it.next();
          cols.put(e.getKey(), new BackfillId(e.getValue().intValue()));
        }
        out.add(new BackfillRequest(new QualifiedName(text(o, "schema"), text(o, "name")), metadata, cols));
      }
    } catch (IOException | RuntimeException e) {
      throw new IllegalArgumentException("stored backfill state is not valid: " + e.getMessage() + ": " + json, e);
    }
    return out;
  }

  private static String text(JsonNode o, String field) {
    JsonNode v = o.get(field);
    if (v == null || !v.isTextual()) {
      throw new IllegalArgumentException("missing \"" + field + "\"");
    }
    return v.textValue();
  }
}
