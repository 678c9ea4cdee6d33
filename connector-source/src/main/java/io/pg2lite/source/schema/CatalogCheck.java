package io.pg2lite.source.schema;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * A catalog check in the stream (replication-stream mode, ADR 0027): the published schema as one
 * transaction read it, with that transaction's snapshot, written into the WAL by the same
 * transaction as a logical message ({@value #PREFIX}), so it arrives at that transaction's commit.
 *
 * <p>What the check says is the catalog as of its snapshot, which may be older than its place in
 * the stream: a DDL that committed after the snapshot and before the message can come before it.
 * The tracker therefore takes a table from the check only when the snapshot saw the transaction
 * that last described the table in the stream ({@link #sees}); where the stream has described a
 * table since, the stream's description is the newer one and is kept. Relation messages carry
 * the xid of their transaction, and a snapshot says exactly which xids it saw.
 */
public record CatalogCheck(String publication, long xmin, long xmax, Set<Long> inProgress, PublishedSchema schema,
    Map<Long, Long> membership) {
  /** Prefix of the logical messages that carry catalog checks. */
  public static final String PREFIX = "pg2lite.catalog";
  private static final ObjectMapper JSON = new ObjectMapper();

  public CatalogCheck {
    inProgress = Set.copyOf(inProgress);
    membership = Map.copyOf(membership);
  }

  /**
   * Whether the snapshot saw transaction {@code xid} committed. Xids compare as Postgres compares
   * them, modulo 2^32: the stream's are 32 bits, the snapshot's ({@code pg_current_snapshot}) 64.
   */
  public boolean sees(long xid) {
    long x = xid & 0xFFFFFFFFL;
    if (precedes(x, xmin)) {
      return true;
    }
    return precedes(x, xmax) && !inProgress.contains(x);
  }

  private static boolean precedes(long a, long b) {
    return (int) (a - b) < 0;
  }

  /**
   * The message's text: the snapshot as {@code pg_current_snapshot()} prints it, the schema, and
   * each table's membership of the publication ({@link SchemaTracker#membership}).
   */
  public static String message(String snapshot, String publishedSchemaJson, Map<Long, Long> membership) {
    try {
      ObjectNode root = JSON.createObjectNode();
      root.put("type", "catalogCheck");
      root.put("version", 1);
      root.put("snapshot", snapshot);
      root.set("schema", JSON.readTree(publishedSchemaJson));
      ObjectNode m = root.putObject("membership");
      membership.forEach((oid, token) -> m.put(Long.toString(oid), token));
      return JSON.writeValueAsString(root);
    } catch (IOException e) {
      throw new IllegalArgumentException("published schema is not JSON: " + e.getMessage(), e);
    }
  }

  /** Reads a message; fails naming what is malformed. */
  public static CatalogCheck parse(byte[] content) {
    JsonNode root;
    try {
      root = JSON.readTree(new String(content, StandardCharsets.UTF_8));
    } catch (IOException e) {
      throw new IllegalArgumentException("malformed " + PREFIX + " message: " + e.getMessage(), e);
    }
    if (!"catalogCheck".equals(root.path("type").asText())) {
      throw new IllegalArgumentException("unknown " + PREFIX + " message type \"" + root.path("type").asText() + "\"");
    }
    String snapshot = root.path("snapshot").asText("");
    String[] parts = snapshot.split(":", -1);
    if (parts.length != 3) {
      throw new IllegalArgumentException(PREFIX + " message: snapshot \"" + snapshot + "\" is not xmin:xmax:xip");
    }
    Set<Long> xip = new HashSet<>();
    for (String x : parts[2].split(",")) {
      if (!x.isEmpty()) {
        xip.add(Long.parseLong(x) & 0xFFFFFFFFL);
      }
    }
    PublishedSchema schema = PublishedSchemaParser.parse(root.path("schema"));
    Map<Long, Long> membership = new java.util.HashMap<>();
    root.path("membership").fields().forEachRemaining(f -> membership.put(Long.valueOf(f.getKey()),
        f.getValue().asLong()));
    return new CatalogCheck(schema.publication(), Long.parseLong(parts[0]) & 0xFFFFFFFFL,
        Long.parseLong(parts[1]) & 0xFFFFFFFFL, xip, schema, membership);
  }

  /**
   * The schema to diff against: the check's tables, except where the stream described a table in a
   * transaction the snapshot did not see ({@code describedBy}: OID to xid), whose tracked form is
   * newer and stays as it is, present or not in the check.
   *
   * @return the proposed schema, and the OIDs now described by the check (their xid forgotten)
   */
  public Merged merge(PublishedSchema tracked, Map<Long, Long> describedBy) {
    Map<Long, PublishedSchema.Table> out = new LinkedHashMap<>();
    Set<Long> fromCheck = new HashSet<>();
    boolean kept = false;
    Map<Long, PublishedSchema.Table> mine = tracked.byOid();
    for (PublishedSchema.Table t : schema.tables()) {
      Long xid = describedBy.get(t.oid());
      if (xid != null && !sees(xid) && mine.containsKey(t.oid())) {
        out.put(t.oid(), mine.get(t.oid()));
        kept = true;
      } else {
        out.put(t.oid(), t);
        fromCheck.add(t.oid());
      }
    }
    for (Map.Entry<Long, PublishedSchema.Table> e : mine.entrySet()) {
      Long xid = describedBy.get(e.getKey());
      if (!out.containsKey(e.getKey()) && xid != null && !sees(xid)) {
        out.put(e.getKey(), e.getValue());
        kept = true;
      }
    }
    return new Merged(new PublishedSchema(tracked.publication(), List.copyOf(out.values())), fromCheck, kept);
  }

  /**
   * See {@link #merge}.
   *
   * @param keptNewer whether the stream's description of a table was kept over the check's: a
   *     later check, whose snapshot sees it, settles the table (it may have left the publication
   *     since, which only a check says)
   */
  public record Merged(PublishedSchema schema, Set<Long> fromCheck, boolean keptNewer) {}
}
