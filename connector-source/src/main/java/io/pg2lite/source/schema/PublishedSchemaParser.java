package io.pg2lite.source.schema;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;

/** Reads the JSON of {@code pg2lite.published_schema(pub)}; fails naming what is malformed. */
public final class PublishedSchemaParser {
  private static final ObjectMapper JSON = new ObjectMapper();

  private PublishedSchemaParser() {}

  public static PublishedSchema parse(String json) {
    try {
      return parse(JSON.readTree(json));
    } catch (IOException e) {
      throw new IllegalArgumentException("published schema is not JSON: " + e.getMessage(), e);
    }
  }

  public static PublishedSchema parse(JsonNode root) {
    List<PublishedSchema.Table> tables = new ArrayList<>();
    for (JsonNode t : required(root, "tables")) {
      List<PublishedSchema.Column> columns = new ArrayList<>();
      for (JsonNode c : required(t, "columns")) {
        columns.add(new PublishedSchema.Column(text(c, "name"), required(c, "pos").asInt(), text(c, "dataType"),
            optText(c, "typeClass"), optText(c, "elemTypeClass"),
            c.path("maxLength").isNumber() ? c.get("maxLength").asInt() : null,
            c.path("notNull").asBoolean(false), optText(c, "dflt"),
            c.path("typmod").isNumber() ? c.get("typmod").asInt() : -1));
      }
      List<PublishedSchema.Index> indexes = new ArrayList<>();
      for (JsonNode i : required(t, "indexes")) {
        List<PublishedSchema.IndexColumn> cols = new ArrayList<>();
        for (JsonNode ic : required(i, "columns")) {
          cols.add(new PublishedSchema.IndexColumn(text(ic, "name"), ic.path("desc").asBoolean(false)));
        }
        indexes.add(new PublishedSchema.Index(text(i, "name"), text(i, "schema"), i.path("unique").asBoolean(),
            i.path("primary").asBoolean(), i.path("replicaIdentity").asBoolean(), i.path("immediate").asBoolean(true),
            i.path("valid").asBoolean(true), cols));
      }
      tables.add(new PublishedSchema.Table(required(t, "oid").asLong(), required(t, "schemaOid").asLong(),
          text(t, "schema"), text(t, "name"), text(t, "replicaIdentity"), columns, indexes));
    }
    return new PublishedSchema(text(root, "publication"), tables);
  }

  private static JsonNode required(JsonNode n, String field) {
    JsonNode v = n.get(field);
    if (v == null || v.isNull()) {
      throw new IllegalArgumentException("published schema: missing \"" + field + "\" in " + n);
    }
    return v;
  }

  private static String text(JsonNode n, String field) {
    return required(n, field).asText();
  }

  private static String optText(JsonNode n, String field) {
    JsonNode v = n.get(field);
    return v == null || v.isNull() ? null : v.asText();
  }
}
