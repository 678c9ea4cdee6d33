package io.pg2lite.source.schema;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;

/** Writes a published schema as the JSON {@link PublishedSchemaParser} reads (the form install.sql's function returns). */
public final class PublishedSchemaWriter {
  private static final JsonNodeFactory F = JsonNodeFactory.instance;

  private PublishedSchemaWriter() {}

  public static JsonNode toJson(PublishedSchema schema) {
    ObjectNode root = F.objectNode();
    root.put("publication", schema.publication());
    ArrayNode tables = root.putArray("tables");
    for (PublishedSchema.Table t : schema.tables()) {
      ObjectNode tn = tables.addObject();
      tn.put("oid", t.oid());
      tn.put("schemaOid", t.schemaOid());
      tn.put("schema", t.schema());
      tn.put("name", t.name());
      tn.put("replicaIdentity", t.replicaIdentity());
      ArrayNode columns = tn.putArray("columns");
      for (PublishedSchema.Column c : t.columns()) {
        ObjectNode cn = columns.addObject();
        cn.put("name", c.name());
        cn.put("pos", c.pos());
        cn.put("dataType", c.dataType());
        cn.put("typeClass", c.typeClass());
        cn.put("elemTypeClass", c.elemTypeClass());
        cn.put("maxLength", c.maxLength());
        cn.put("typmod", c.typmod());
        cn.put("notNull", c.notNull());
        cn.put("dflt", c.dflt());
      }
      ArrayNode indexes = tn.putArray("indexes");
      for (PublishedSchema.Index i : t.indexes()) {
        ObjectNode in = indexes.addObject();
        in.put("name", i.name());
        in.put("schema", i.schema());
        in.put("unique", i.unique());
        in.put("primary", i.primary());
        in.put("replicaIdentity", i.replicaIdentity());
        in.put("immediate", i.immediate());
        in.put("valid", i.valid());
        ArrayNode cols = in.putArray("columns");
        i.columns().forEach(c -> cols.addObject().put("name", c.name()).put("desc", c.desc()));
      }
    }
    return root;
  }
}
