package io.pg2lite.source.schema;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.pg2lite.protocol.message.SchemaChange;
import io.pg2lite.protocol.schema.QualifiedName;
import io.pg2lite.protocol.schema.Relation;
import io.pg2lite.protocol.schema.RowKey;
import io.pg2lite.protocol.value.Row;
import io.pg2lite.source.replication.ReplicationEvent;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The source's view of the published schema at its place in the stream, kept current by what the
 * stream says of schema changes, in one of two ways ({@link DdlDetection}, ADR 0027).
 *
 * <p><b>Event triggers.</b> The triggers emit, inside each DDL's transaction, the schema before
 * ({@code ddlStart}) and after ({@code ddlUpdate}) the command; the tracker diffs the pair into
 * schema changes. The "before" comes from the message, not from the tracker, so the diff is right
 * even when the tracker was loaded at a later point than the stream resumed from. Messages for
 * other publications (other sources on the same database) are ignored.
 *
 * <p><b>Replication stream.</b> A Relation message that describes a table otherwise than the
 * tracker holds it is diffed into schema changes before the change that follows it
 * ({@link RelationTables}); a catalog check ({@link CatalogCheck}) is diffed where the stream has
 * not described a table since its snapshot. Both diffs backfill what they add: the stream never
 * says what values an added column got.
 *
 * <p>Row keys come from the tracked schema, which is exact at every point of the stream, not from
 * the catalog (where Debezium looks keys up), which may be many DDLs ahead of a lagging stream.
 * The tracked schema is also the one a restart resumes with: its {@link #version} moves with
 * every change, and the source records each new version with the commit it belongs to (ADR 0028).
 *
 * <p>The tracked schema is the admitted one ({@link NameAdmission}): tables and columns whose
 * replica names collide are left out of it, and of the rows ({@link #replicates},
 * {@link #admittedRow}); each new refusal is logged once, naming both sides.
 */
public final class SchemaTracker {
  /** Prefix of the logical messages the DDL event triggers emit. */
  public static final String DDL_MESSAGE_PREFIX = "pg2lite.ddl";
  /** The prefix of the logical message {@code pg2lite.resync(table)} emits. */
  public static final String RESYNC_MESSAGE_PREFIX = "pg2lite.resync";
  private static final ObjectMapper JSON = new ObjectMapper();

  private static final org.slf4j.Logger LOG = org.slf4j.LoggerFactory.getLogger(SchemaTracker.class);

  private final String publication;
  private final ProtocolSpecs specs;
  private final SchemaDiff diff;
  private volatile DdlDetection detection;
  /**
   * Whether the event triggers report this publication although the tracker reads the stream: it
   * resumed a schema tracked without them, and the first DDL message they send makes it switch.
   */
  private boolean triggersReport;
  /** The catalog now (replication-stream mode only; null with event triggers). */
  private final CatalogView catalog;
  private NameAdmission.Admitted current;
  /** The tables of {@link #current} by name: every row change looks its table up. */
  private Map<QualifiedName, PublishedSchema.Table> byName;
  /** Per table OID, the xid of the transaction whose Relation message the tracked table comes from. */
  private Map<Long, Long> describedBy;
  /** Per table OID, how the last catalog check found it in the publication ({@link #membership}). */
  private Map<Long, Long> membership;
  private long version;
  private PublishedSchema pendingBefore;
  /** The last Relation message of each table in this stream session, by its name then. */
  private final Map<QualifiedName, ReplicationEvent.Relation> described = new HashMap<>();
  private final Map<Long, CatalogView.TypeName> types = new HashMap<>();
  /** The last catalog read, reused while it agrees with the Relation messages that follow. */
  private PublishedSchema catalogRead;
  private int unknownPos;
  /** What the backfill copies as of the entries it has seen (the source's backfill state); none until wired. */
  private CopyingColumns copies = CopyingColumns.NONE;
  /**
   * Columns this tracker sent with a backfill since the backfill state last caught up with the
   * entries ({@link #entriesObserved}): it sees a poll's entries only after the tracker made them,
   * so a migration's {@code ADD COLUMN k … DEFAULT now()} and its {@code ADD PRIMARY KEY (id, k)}
   * read in one poll would otherwise find k not being copied.
   */
  private final Set<List<String>> sentWithBackfill = new HashSet<>();

  /** A tracker of schema changes reported by event triggers, from {@code initial}. */
  public SchemaTracker(PublishedSchema initial, ProtocolSpecs specs) {
    this(initial, Map.of(), Map.of(), specs, DdlDetection.EVENT_TRIGGERS, null);
  }

  /**
   * @param describedBy per table OID, the xid of the Relation message the table was last described
   *     by (as recorded with {@code initial}); empty with event triggers
   * @param catalog the catalog, for replication-stream mode; null with event triggers
   */
  public SchemaTracker(PublishedSchema initial, Map<Long, Long> describedBy, Map<Long, Long> membership,
      ProtocolSpecs specs, DdlDetection detection, CatalogView catalog) {
    if (detection == DdlDetection.REPLICATION_STREAM && catalog == null) {
      throw new IllegalArgumentException("replication-stream mode reads the catalog");
    }
    this.publication = initial.publication();
    setCurrent(NameAdmission.admit(initial, null));
    this.describedBy = Map.copyOf(describedBy);
    this.membership = Map.copyOf(membership);
    current.refusals().forEach(r -> LOG.warn("Publication {}: {}", publication, r));
    this.specs = specs;
    this.diff = new SchemaDiff(specs, this::copying);
    this.detection = detection;
    this.catalog = catalog;
    this.unknownPos = initial.tables().stream().flatMap(t -> t.columns().stream())
        .mapToInt(PublishedSchema.Column::pos).filter(p -> p < 0).min().orElse(0);
  }

  /** Tells the tracker which columns the backfill is copying (as of the entries it has seen). */
  public void watchCopies(CopyingColumns copies) {
    this.copies = copies;
  }

  /** The backfill state has seen every entry this tracker made so far. */
  public void entriesObserved() {
    sentWithBackfill.clear();
  }

  private boolean copying(QualifiedName table, String column) {
    return sentWithBackfill.contains(List.of(table.schema(), table.name(), column))
        || copies.copying(table, column);
  }

  private void noteBackfills(List<SchemaChange> changes) {
    for (SchemaChange c : changes) {
      if (c instanceof SchemaChange.AddColumn a && a.backfill() != null) {
        sentWithBackfill.add(List.of(a.table().schema(), a.table().name(), a.column().name()));
      } else if (c instanceof SchemaChange.CreateTable t && t.backfill() != null) {
        t.backfill().keySet().forEach(col -> sentWithBackfill.add(List.of(t.spec().schema(),
            t.spec().name(), col)));
      }
    }
  }

  public DdlDetection detection() {
    return detection;
  }

  /** The admitted schema. */
  public PublishedSchema current() {
    return current.schema();
  }

  /** Per table OID, the xid of the Relation message the tracked table comes from (replication-stream mode). */
  public Map<Long, Long> describedBy() {
    return describedBy;
  }

  /**
   * Per table OID, how the last catalog check found it in the publication: the
   * {@code pg_publication_rel} row that lists it (its OID), the {@code pg_publication_namespace}
   * row of its schema (the negated OID), or 0 for FOR ALL TABLES. A table taken out of the
   * publication and put back between two checks looks the same to both, but for this: its rows
   * changed meanwhile were never sent, so it is copied again whole, as ALTER PUBLICATION ... ADD
   * TABLE is with event triggers.
   */
  public Map<Long, Long> membership() {
    return membership;
  }

  /** Moves on every change of {@link #current} or {@link #describedBy}: what a restart must find recorded. */
  public long version() {
    return version;
  }

  /** Whether rows of {@code table} are replicated: false for a table refused for its replica name. */
  public boolean replicates(QualifiedName table) {
    return !current.refusedTables().containsKey(table);
  }

  /** Whether the tracked schema holds {@code table}. */
  public boolean holds(QualifiedName table) {
    return find(table) != null;
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

  /**
   * Replication-stream mode resumed where event triggers now report this publication: the first
   * DDL message they send switches the tracker to them. Every DDL from that one on is reported,
   * and the stream before it, replayed from a position tracked without them, may hold DDL no
   * trigger saw, which the Relation messages and catalog checks covered.
   */
  public void switchToEventTriggersWhenTheyReport() {
    triggersReport = true;
  }

  /** What the tracker knows at one point of the stream, to go back to (immutable). */
  public record Mark(NameAdmission.Admitted current, Map<Long, Long> describedBy, Map<Long, Long> membership,
      long version, PublishedSchema pendingBefore, DdlDetection detection) {}

  /** The tracker's state now; taken at each upstream begin. */
  public Mark mark() {
    return new Mark(current, describedBy, membership, version, pendingBefore, detection);
  }

  /**
   * Goes back to {@code mark}: a transaction cut by a restart of the stream arrives again from
   * its begin, and its rows must be keyed, and its DDL diffed, as the first time, against the
   * schema before it.
   */
  public void restore(Mark mark) {
    setCurrent(mark.current());
    describedBy = mark.describedBy();
    membership = mark.membership();
    version = mark.version();
    pendingBefore = mark.pendingBefore();
    detection = mark.detection();
  }

  /** Handles one message of the event triggers; returns the schema changes it implies (often none). */
  public List<SchemaChange> onDdlMessage(byte[] content) {
    if (detection != DdlDetection.EVENT_TRIGGERS && !triggersReport) {
      return List.of();
    }
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
    if (detection != DdlDetection.EVENT_TRIGGERS) {
      LOG.info("Publication {}: the event triggers report its DDL from here on; schema changes are no longer read "
          + "from Relation messages and catalog checks", publication);
      detection = DdlDetection.EVENT_TRIGGERS;
      describedBy = Map.of();
      version++;
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
    return moveTo(before, schema, msg.path("tag").asText(), describedBy, membership);
  }

  /**
   * Handles a Relation message (replication-stream mode; ignored with event triggers): the schema
   * changes that make the tracked table the one it describes, to be written before the change it
   * precedes.
   */
  public List<SchemaChange> onRelation(ReplicationEvent.Relation r) {
    if (detection != DdlDetection.REPLICATION_STREAM) {
      return List.of();
    }
    described.put(new QualifiedName(r.schema(), r.name()), r);
    PublishedSchema.Table tracked = current.schema().byOid().get(r.oid());
    Map<Long, CatalogView.TypeName> known = typesOf(r);
    if (tracked != null && RelationTables.describes(tracked, r, known, specs)) {
      return List.of();
    }
    PublishedSchema.Table inCatalog = catalogTable(r, known);
    long schemaOid = inCatalog != null && inCatalog.schema().equals(r.schema()) ? inCatalog.schemaOid()
        : tracked != null && tracked.schema().equals(r.schema()) ? tracked.schemaOid() : catalog.schemaOid(r.schema());
    PublishedSchema.Table table = RelationTables.table(r, known, inCatalog, tracked, schemaOid, () -> --unknownPos);
    List<PublishedSchema.Table> tables = new ArrayList<>(current.schema().tables());
    // The message proves its name is its OID's at this point: a table tracked under that name with
    // another OID was dropped (or renamed) before, even if no check said so yet.
    tables.removeIf(t -> t.oid() == r.oid() || t.schema().equals(r.schema()) && t.name().equals(r.name()));
    tables.add(table);
    Map<Long, Long> nowDescribed = new HashMap<>(describedBy);
    nowDescribed.put(r.oid(), r.txId());
    return moveTo(current.schema(), new PublishedSchema(publication, tables), SchemaDiff.UNKNOWN_COMMAND, nowDescribed,
        membership);
  }

  /**
   * A change of {@code table}, which the tracked schema does not hold, in replication-stream mode:
   * the stream described it earlier in this session, and a catalog check whose snapshot was older
   * than that took it out since. Its last Relation message describes it again.
   */
  public List<SchemaChange> onUnknownTable(QualifiedName table) {
    ReplicationEvent.Relation r = described.get(table);
    if (detection != DdlDetection.REPLICATION_STREAM || r == null || !replicates(table)) {
      return List.of();
    }
    LOG.info("Publication {}: a change of {}, which the schema tracked no longer holds, follows its Relation "
        + "message: describing the table again", publication, table);
    return onRelation(r);
  }

  /**
   * Handles a catalog check (replication-stream mode; ignored with event triggers and for other
   * publications): see {@link CatalogCheck#merge} for which of its tables are taken.
   */
  public List<SchemaChange> onCatalogCheck(byte[] content) {
    if (detection != DdlDetection.REPLICATION_STREAM) {
      return List.of();
    }
    CatalogCheck check = CatalogCheck.parse(content);
    if (!publication.equals(check.publication())) {
      return List.of();
    }
    CatalogCheck.Merged merged = check.merge(current.schema(), describedBy);
    if (merged.keptNewer()) {
      catalog.checkAgainSoon();
    }
    Set<Long> kept = new HashSet<>();
    merged.schema().tables().forEach(t -> kept.add(t.oid()));
    Map<Long, Long> nowDescribed = new HashMap<>(describedBy);
    nowDescribed.keySet().removeAll(merged.fromCheck());
    nowDescribed.keySet().retainAll(kept);
    Map<Long, Long> nowMembership = new HashMap<>(membership);
    Set<Long> readded = new HashSet<>();
    for (Long oid : merged.fromCheck()) {
      Long was = membership.get(oid);
      Long is = check.membership().get(oid);
      if (is != null) {
        nowMembership.put(oid, is);
        if (was != null && !was.equals(is) && current.schema().byOid().containsKey(oid)) {
          readded.add(oid);
        }
      }
    }
    nowMembership.keySet().retainAll(kept);
    List<SchemaChange> changes = new ArrayList<>();
    if (!readded.isEmpty()) {
      // Out of the publication and back since the last check: dropped here, so that the diff
      // below creates it again, copied whole.
      List<PublishedSchema.Table> without = new ArrayList<>(current.schema().tables());
      without.removeIf(t -> readded.contains(t.oid()));
      changes.addAll(moveTo(current.schema(), new PublishedSchema(publication, without), SchemaDiff.UNKNOWN_COMMAND,
          describedBy, membership));
    }
    changes.addAll(moveTo(current.schema(), merged.schema(), SchemaDiff.UNKNOWN_COMMAND, nowDescribed,
        nowMembership));
    return changes;
  }

  /**
   * A request to copy one published table again whole ({@code pg2lite.resync(table)}, a
   * transactional message: it takes effect in its transaction): the table is dropped and created
   * again in the replicas, its indexes with it, and copied from a snapshot, as a table whose row
   * key changed type is (SchemaDiff). What a verification found different is then replaced. A
   * table not published is named in a warning and changes nothing.
   */
  public List<SchemaChange> onResync(byte[] content) {
    QualifiedName name;
    try {
      JsonNode msg = JSON.readTree(new String(content, StandardCharsets.UTF_8));
      name = new QualifiedName(msg.path("schema").asText(), msg.path("name").asText());
    } catch (IOException | RuntimeException e) {
      LOG.warn("Publication {}: a {} message that names no table, ignored: {}", publication, RESYNC_MESSAGE_PREFIX,
          new String(content, StandardCharsets.UTF_8));
      return List.of();
    }
    PublishedSchema.Table t = find(name);
    if (t == null) {
      LOG.warn("Publication {}: resync of {} asked for, but the table is not published: nothing to copy", publication,
          name);
      return List.of();
    }
    LOG.info("Publication {}: resync of {} asked for: the replicas drop the table and copy it again whole",
        publication, name);
    List<SchemaChange> changes = diff.diff(current.schema(), current.schema(), SchemaDiff.RESYNC, Set.of(t.oid()));
    noteBackfills(changes);
    return changes;
  }

  /** A published table as a verification reads it, or null when {@code name} is not published. */
  public io.pg2lite.backfill.verify.VerifyTable verifyTable(QualifiedName name) {
    PublishedSchema.Table t = find(name);
    if (t == null) {
      return null;
    }
    return new io.pg2lite.backfill.verify.VerifyTable(specs.relation(t), specs.metadata(t),
        new java.util.TreeMap<>(specs.tableSpec(t).columns()));
  }

  /** Every table replicated now. */
  public List<QualifiedName> publishedTables() {
    return List.copyOf(byName.keySet());
  }

  /** Admits {@code proposed}, diffs it against {@code before}, and makes it the tracked schema. */
  private List<SchemaChange> moveTo(PublishedSchema before, PublishedSchema proposed, String command,
      Map<Long, Long> nowDescribed, Map<Long, Long> nowMembership) {
    NameAdmission.Admitted next = NameAdmission.admit(proposed, current.schema());
    List<String> known = current.refusals();
    next.refusals().stream().filter(r -> !known.contains(r)).forEach(r -> LOG.warn("Publication {}: {}", publication, r));
    List<SchemaChange> changes = diff.diff(before, next.schema(), command);
    noteBackfills(changes);
    if (!next.schema().equals(current.schema()) || !nowDescribed.equals(describedBy)
        || !nowMembership.equals(membership)) {
      version++;
    }
    setCurrent(next);
    describedBy = Map.copyOf(nowDescribed);
    membership = Map.copyOf(nowMembership);
    return changes;
  }

  /** The types of {@code r}'s columns, from the catalog once per type OID. */
  private Map<Long, CatalogView.TypeName> typesOf(ReplicationEvent.Relation r) {
    List<Long> missing = r.columns().stream().map(ReplicationEvent.RelationColumn::typeOid)
        .filter(oid -> !types.containsKey(oid)).distinct().toList();
    if (!missing.isEmpty()) {
      types.putAll(catalog.types(missing));
    }
    return types;
  }

  /**
   * The catalog's table of {@code r}'s OID: from the last read while that read has every column
   * of {@code r} as the message has it, else read anew (a burst of Relation messages after DDL on
   * many tables reads the catalog once, not once per table).
   */
  private PublishedSchema.Table catalogTable(ReplicationEvent.Relation r, Map<Long, CatalogView.TypeName> known) {
    PublishedSchema.Table t = catalogRead == null ? null : catalogRead.byOid().get(r.oid());
    if (t == null || !agrees(t, r, known)) {
      // The tracked tables too, and tables newer than all of them: a burst of Relation messages
      // (DDL on many tables, many tables created) is likely to ask for them next.
      Set<Long> oids = new HashSet<>(current.schema().byOid().keySet());
      oids.add(r.oid());
      long newest = oids.stream().filter(o -> o != r.oid()).mapToLong(Long::longValue).max().orElse(0);
      catalogRead = catalog.tables(oids, newest);
      t = catalogRead.byOid().get(r.oid());
    }
    return t;
  }

  private static boolean agrees(PublishedSchema.Table t, ReplicationEvent.Relation r,
      Map<Long, CatalogView.TypeName> known) {
    for (ReplicationEvent.RelationColumn rc : r.columns()) {
      PublishedSchema.Column c = t.column(rc.name());
      CatalogView.TypeName type = known.get(rc.typeOid());
      if (c == null || type == null || !c.dataType().equals(type.dataType()) || c.typmod() != rc.typmod()) {
        return false;
      }
    }
    return t.name().equals(r.name()) && t.schema().equals(r.schema());
  }

  private PublishedSchema.Table find(QualifiedName table) {
    return byName.get(table);
  }

  private void setCurrent(NameAdmission.Admitted admitted) {
    current = admitted;
    Map<QualifiedName, PublishedSchema.Table> names = new HashMap<>();
    admitted.schema().tables().forEach(t -> names.put(new QualifiedName(t.schema(), t.name()), t));
    byName = names;
  }

  /**
   * The relation of a row change on {@code table}: its row key from the tracked schema, which is
   * the table as it was when the row was written. Debezium's key is used only for a table the
   * tracker does not know: Debezium reads primary keys from the current catalog, which after a
   * restart of a lagging source may already hold a later key, or none under the table's old name
   * (fuzz seed 3015: a key of the wrong columns, then "lacks key column" at the sink).
   */
  public Relation relation(QualifiedName table, List<String> upstreamKey) {
    PublishedSchema.Table t = find(table);
    if (t != null) {
      Relation r = specs.relation(t);
      return !r.rowKey().columns().isEmpty() || upstreamKey.isEmpty() ? r
          : new Relation(r.schema(), r.name(), new RowKey(upstreamKey, r.rowKey().type()));
    }
    return new Relation(table.schema(), table.name(), new RowKey(upstreamKey, null));
  }
}
