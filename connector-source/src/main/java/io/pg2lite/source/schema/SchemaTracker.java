package io.pg2lite.source.schema;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.pg2lite.protocol.message.SchemaChange;
import io.pg2lite.protocol.schema.QualifiedName;
import io.pg2lite.protocol.schema.Relation;
import io.pg2lite.protocol.schema.RowKey;
import io.pg2lite.protocol.value.Row;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;

/**
 * The source's view of the published schema, kept current by the DDL messages in the stream.
 *
 * <p>The event triggers emit, inside each DDL's transaction, the schema before ({@code ddlStart})
 * and after ({@code ddlUpdate}) the command; the tracker diffs the pair into schema changes. The
 * "before" comes from the message, not from the tracker, so the diff is right even when the
 * tracker was loaded at a later point than the stream resumed from. Messages for other
 * publications (other sources on the same database) are ignored.
 *
 * <p>Each {@code ddlUpdate} also names the row of {@code pg2lite.schema_history} that holds its
 * schema ({@code schemaId}); the source stores the id of the tracked schema in its offsets, so a
 * restart resumes with the schema of its resume position. Row keys come from the tracked schema,
 * which is exact at every point of the stream: DDL messages are in WAL order with the rows, and
 * the catalog (where Debezium looks keys up) may be many DDLs ahead of a lagging stream.
 *
 * <p>The tracked schema is the admitted one ({@link NameAdmission}): tables and columns whose
 * replica names collide are left out of it, and of the rows ({@link #replicates},
 * {@link #admittedRow}); each new refusal is logged once, naming both sides.
 */
public final class SchemaTracker {
  /** Prefix of the logical messages the DDL event triggers emit. */
  public static final String DDL_MESSAGE_PREFIX = "pg2lite.ddl";
  private static final ObjectMapper JSON = new ObjectMapper();

  private static final org.slf4j.Logger LOG = org.slf4j.LoggerFactory.getLogger(SchemaTracker.class);

  private final String publication;
  private final ProtocolSpecs specs;
  private final SchemaDiff diff;
  private NameAdmission.Admitted current;
  private Long currentId;
  private PublishedSchema pendingBefore;

  public SchemaTracker(PublishedSchema initial, ProtocolSpecs specs) {
    this(initial, null, specs);
  }

  /** @param initialId the schema's id in {@code pg2lite.schema_history}, or null when it has none */
  public SchemaTracker(PublishedSchema initial, Long initialId, ProtocolSpecs specs) {
    this.publication = initial.publication();
    this.current = NameAdmission.admit(initial, null);
    this.currentId = initialId;
    current.refusals().forEach(r -> LOG.warn("Publication {}: {}", publication, r));
    this.specs = specs;
    this.diff = new SchemaDiff(specs);
  }

  /** The admitted schema. */
  public PublishedSchema current() {
    return current.schema();
  }

  /** Whether rows of {@code table} are replicated: false for a table refused for its replica name. */
  public boolean replicates(QualifiedName table) {
    return !current.refusedTables().containsKey(table);
  }

  /** {@code row} of {@code table} without the columns refused for their names (null stays null). */
  public Row admittedRow(QualifiedName table, Row row) {
    Map<String, String> refused = current.refusedColumns().get(table);
    if (row == null || refused == null) {
      return row;
    }
    Row.Builder b = Row.builder();
    row.values().forEach((c, v) -> {
      if (!refused.containsKey(c)) {
        b.put(c, v);
      }
    });
    return b.build();
  }

  /** The tracked schema's id in {@code pg2lite.schema_history}; null when the catalog keeps no history. */
  public Long currentId() {
    return currentId;
  }

  /** What the tracker knows at one point of the stream, to go back to (immutable). */
  public record Mark(NameAdmission.Admitted current, Long currentId, PublishedSchema pendingBefore) {}

  /** The tracker's state now; taken at each upstream begin. */
  public Mark mark() {
    return new Mark(current, currentId, pendingBefore);
  }

  /**
   * Goes back to {@code mark}: a transaction cut by a restart of the stream arrives again from
   * its begin, and its rows must be keyed, and its DDL diffed, as the first time, against the
   * schema before it.
   */
  public void restore(Mark mark) {
    current = mark.current();
    currentId = mark.currentId();
    pendingBefore = mark.pendingBefore();
  }

  /** Handles one DDL message; returns the schema changes it implies (often none). */
  public List<SchemaChange> onDdlMessage(byte[] content) {
    JsonNode msg;
    try {
      msg = JSON.readTree(new String(content, StandardCharsets.UTF_8));
    } catch (IOException e) {
      throw new IllegalArgumentException("malformed " + DDL_MESSAGE_PREFIX + " message: " + e.getMessage(), e);
    }
    PublishedSchema schema = PublishedSchemaParser.parse(msg.path("schema"));
    if (!publication.equals(schema.publication())) {
      return List.of();
    }
    String type = msg.path("type").asText();
    if ("ddlStart".equals(type)) {
      pendingBefore = NameAdmission.admit(schema, current.schema()).schema();
      return List.of();
    }
    if (!"ddlUpdate".equals(type)) {
      throw new IllegalArgumentException("unknown " + DDL_MESSAGE_PREFIX + " message type \"" + type + "\"");
    }
    PublishedSchema before = pendingBefore != null ? pendingBefore : current.schema();
    pendingBefore = null;
    NameAdmission.Admitted next = NameAdmission.admit(schema, current.schema());
    List<String> known = current.refusals();
    next.refusals().stream().filter(r -> !known.contains(r)).forEach(r -> LOG.warn("Publication {}: {}", publication, r));
    List<SchemaChange> changes = diff.diff(before, next.schema(), msg.path("tag").asText());
    current = next;
    currentId = msg.hasNonNull("schemaId") ? msg.get("schemaId").asLong() : null;
    return changes;
  }

  /**
   * The relation of a row change on {@code table}: its row key from the tracked schema, which is
   * the table as it was when the row was written. Debezium's key is used only for a table the
   * tracker does not know: Debezium reads primary keys from the current catalog, which after a
   * restart of a lagging source may already hold a later key, or none under the table's old name
   * (fuzz seed 3015: a key of the wrong columns, then "lacks key column" at the sink).
   */
  public Relation relation(QualifiedName table, List<String> upstreamKey) {
    for (PublishedSchema.Table t : current.schema().tables()) {
      if (t.schema().equals(table.schema()) && t.name().equals(table.name())) {
        Relation r = specs.relation(t);
        return !r.rowKey().columns().isEmpty() || upstreamKey.isEmpty() ? r
            : new Relation(r.schema(), r.name(), new RowKey(upstreamKey, r.rowKey().type()));
      }
    }
    return new Relation(table.schema(), table.name(), new RowKey(upstreamKey, null));
  }
}
