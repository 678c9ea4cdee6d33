package io.pg2lite.backfill.verify;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.pg2lite.protocol.message.Verify;
import io.pg2lite.protocol.schema.QualifiedName;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * One request to verify: from {@code pg2lite.verify(...)} (a transactional logical message
 * {@value #MESSAGE_PREFIX}, so it takes effect at its commit and a rolled-back request never
 * arrives), or from {@code verify.interval.ms}.
 *
 * <p>The same JSON is the message's content and, as a list, what the source stores with its
 * offsets ({@link #encodeAll}) so that a request survives a restart with the log position it
 * belongs to: {@code {"id":"…","tables":[{"schema":"public","name":"t"}],"keyFrom":1,"keyTo":9}};
 * {@code tables} null or absent means every published table.
 *
 * @param tables the tables still to verify, or null for every published table
 * @param keyRange the key range to verify (tables keyed by one integer column), or null
 */
public record VerifyRequest(String id, List<QualifiedName> tables, Verify.KeyRange keyRange) {
  /** The prefix of the logical message {@code pg2lite.verify(...)} emits. */
  public static final String MESSAGE_PREFIX = "pg2lite.verify";
  private static final ObjectMapper JSON = new ObjectMapper();

  public VerifyRequest {
    Objects.requireNonNull(id, "id");
    if (id.isBlank()) {
      throw new IllegalArgumentException("a verify request has an id");
    }
    tables = tables == null ? null : List.copyOf(tables);
  }

  /** The request with {@code table} done: the tables still to verify. */
  VerifyRequest without(QualifiedName table) {
    List<QualifiedName> rest = new ArrayList<>(tables);
    rest.remove(table);
    return new VerifyRequest(id, rest, keyRange);
  }

  /** A request the database committed: the content of its {@value #MESSAGE_PREFIX} message. */
  public static VerifyRequest parse(byte[] content) {
    String text = new String(content, StandardCharsets.UTF_8);
    try {
      return read(JSON.readTree(text));
    } catch (IOException | RuntimeException e) {
      throw new IllegalArgumentException("a " + MESSAGE_PREFIX + " message is not a verify request ("
          + e.getMessage() + "): " + text, e);
    }
  }

  public static String encodeAll(List<VerifyRequest> requests) {
    ArrayNode out = JSON.createArrayNode();
    for (VerifyRequest r : requests) {
      ObjectNode o = out.addObject();
      o.put("id", r.id);
      if (r.tables != null) {
        ArrayNode t = o.putArray("tables");
        r.tables.forEach(q -> t.addObject().put("schema", q.schema()).put("name", q.name()));
      }
      if (r.keyRange != null) {
        o.put("keyFrom", r.keyRange.from());
        o.put("keyTo", r.keyRange.to());
      }
    }
    return out.toString();
  }

  public static List<VerifyRequest> decodeAll(String json) {
    List<VerifyRequest> out = new ArrayList<>();
    try {
      for (JsonNode o : JSON.readTree(json)) {
        out.add(read(o));
      }
    } catch (IOException | RuntimeException e) {
      throw new IllegalArgumentException("stored verify requests are not valid: " + e.getMessage() + ": " + json, e);
    }
    return out;
  }

  private static VerifyRequest read(JsonNode o) {
    if (!o.isObject() || !o.path("id").isTextual()) {
      throw new IllegalArgumentException("a verify request is an object with a text \"id\"");
    }
    List<QualifiedName> tables = null;
    JsonNode t = o.get("tables");
    if (t != null && !t.isNull()) {
      tables = new ArrayList<>();
      for (JsonNode q : t) {
        if (!q.path("schema").isTextual() || !q.path("name").isTextual()) {
          throw new IllegalArgumentException("a table of a verify request has a text \"schema\" and \"name\": " + q);
        }
        tables.add(new QualifiedName(q.get("schema").textValue(), q.get("name").textValue()));
      }
    }
    Verify.KeyRange range = null;
    JsonNode from = o.get("keyFrom");
    JsonNode to = o.get("keyTo");
    if ((from != null && !from.isNull()) || (to != null && !to.isNull())) {
      range = new Verify.KeyRange(from == null || from.isNull() ? Long.MIN_VALUE : from.asLong(),
          to == null || to.isNull() ? Long.MAX_VALUE : to.asLong());
    }
    return new VerifyRequest(o.get("id").textValue(), tables, range);
  }
}
