package io.pg2lite.source.schema;

import static io.pg2lite.source.schema.Schemas.col;
import static io.pg2lite.source.schema.Schemas.index;
import static io.pg2lite.source.schema.Schemas.pk;
import static io.pg2lite.source.schema.Schemas.schema;
import static io.pg2lite.source.schema.Schemas.table;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pg2lite.protocol.message.SchemaChange;
import io.pg2lite.protocol.schema.QualifiedName;
import io.pg2lite.source.replication.ReplicationEvent;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The tracker in replication-stream mode (ADR 0027): Relation messages and catalog checks diffed
 * into schema changes, against a catalog that may be ahead of the stream. The catalog here is a
 * stand-in holding what a test puts in it (a unit test; the ITs run the real one).
 */
class StreamedSchemaTest {
  private static final long INT4 = 23;
  private static final long TEXT = 25;
  private static final long INT8 = 20;

  /** The catalog "now", as a test sets it. */
  private static final class Catalog implements CatalogView {
    PublishedSchema now;
    int reads;

    Catalog(PublishedSchema now) {
      this.now = now;
    }

    @Override
    public PublishedSchema tables(Collection<Long> oids, long newerThan) {
      reads++;
      return new PublishedSchema(now.publication(), now.tables().stream()
          .filter(t -> oids.contains(t.oid()) || t.oid() > newerThan).toList());
    }

    @Override
    public Map<Long, TypeName> types(Collection<Long> oids) {
      Map<Long, TypeName> out = new HashMap<>();
      Map<Long, String> names = Map.of(INT4, "int4", TEXT, "text", INT8, "int8");
      oids.stream().filter(names::containsKey).forEach(o -> out.put(o, new TypeName(names.get(o), "b", null)));
      return out;
    }

    @Override
    public long schemaOid(String name) {
      return 2200;
    }
  }

  private static final PublishedSchema.Table T = table(1, "t", List.of(col("id", 1, "int4", true),
      col("v", 2, "text", false)), pk("t_pkey", "id"));

  private final Catalog catalog = new Catalog(schema(T));
  private final SchemaTracker tracker = new SchemaTracker(schema(T), Map.of(), Map.of(), new ProtocolSpecs(true),
      DdlDetection.REPLICATION_STREAM, catalog);

  private static ReplicationEvent.Relation relation(long xid, String name, ReplicationEvent.RelationColumn... cols) {
    return new ReplicationEvent.Relation(xid, 1, "public", name, 'd', List.of(cols));
  }

  private static ReplicationEvent.RelationColumn c(String name, long type, boolean key) {
    return new ReplicationEvent.RelationColumn(name, type, -1, key);
  }

  private static ReplicationEvent.RelationColumn id() {
    return c("id", INT4, true);
  }

  @Test
  void aRelationMessageThatDescribesTheTrackedTableChangesNothingAndReadsNoCatalog() {
    long version = tracker.version();
    assertEquals(List.of(), tracker.onRelation(relation(5, "t", id(), c("v", TEXT, false))));
    assertEquals(version, tracker.version());
    assertEquals(0, catalog.reads);
  }

  @Test
  void anAddedColumnIsBackfilledWhateverItsDefault() {
    catalog.now = schema(table(1, "t", List.of(col("id", 1, "int4", true), col("v", 2, "text", false),
        new PublishedSchema.Column("n", 3, "int4", "b", null, null, true, "7")), pk("t_pkey", "id")));
    List<SchemaChange> changes = tracker.onRelation(relation(5, "t", id(), c("v", TEXT, false), c("n", INT4, false)));
    SchemaChange.AddColumn add = (SchemaChange.AddColumn) changes.get(0);
    assertEquals("n", add.column().name());
    assertEquals(3, add.backfill().attNum(), "the catalog's attnum, where it agrees with the stream");
    assertNull(add.column().spec().dflt(), "the values come from the backfill, not the default");
    assertEquals(Map.of(1L, 5L), tracker.describedBy());
  }

  @Test
  void aRenameIsARenameWhenTheCatalogHasTheNewNameAtTheOldAttnum() {
    catalog.now = schema(table(1, "t", List.of(col("id", 1, "int4", true), col("w", 2, "text", false)),
        pk("t_pkey", "id")));
    List<SchemaChange> changes = tracker.onRelation(relation(5, "t", id(), c("w", TEXT, false)));
    SchemaChange.UpdateColumn u = (SchemaChange.UpdateColumn) changes.get(0);
    assertEquals("v", u.old().name());
    assertEquals("w", u.updated().name());
    assertEquals(1, changes.size());
  }

  @Test
  void aRenameTheCatalogCannotConfirmIsADropAndABackfilledAdd() {
    // The catalog is ahead: w was dropped again since the Relation message was sent.
    catalog.now = schema(table(1, "t", List.of(col("id", 1, "int4", true)), pk("t_pkey", "id")));
    List<SchemaChange> changes = tracker.onRelation(relation(5, "t", id(), c("w", TEXT, false)));
    assertEquals("v", ((SchemaChange.DropColumn) changes.get(0)).column());
    SchemaChange.AddColumn add = (SchemaChange.AddColumn) changes.get(1);
    assertEquals("w", add.column().name());
    assertTrue(add.backfill().attNum() < 0, "an attnum of its own below zero: not known");
  }

  @Test
  void aColumnDroppedAndAddedUnderItsNameIsCopiedAgainWhenTheCatalogSaysSo() {
    // A Relation message for it is the one before, name for name and type for type: the stream
    // cannot tell. The catalog can: v has another attnum now.
    PublishedSchema replaced = schema(table(1, "t", List.of(col("id", 1, "int4", true), col("v", 3, "text", false)),
        pk("t_pkey", "id")));
    catalog.now = replaced;
    assertEquals(List.of(), tracker.onRelation(relation(5, "t", id(), c("v", TEXT, false))));
    List<SchemaChange> changes = tracker.onCatalogCheck(check("6:6:", replaced));
    assertEquals("v", ((SchemaChange.DropColumn) changes.get(0)).column());
    assertEquals(3, ((SchemaChange.AddColumn) changes.get(1)).backfill().attNum());
  }

  @Test
  void aColumnDroppedAndAddedWithOtherColumnsChangingIsCopiedAgainAtOnce() {
    catalog.now = schema(table(1, "t", List.of(col("id", 1, "int4", true), col("v", 3, "text", false),
        col("n", 4, "int4", false)), pk("t_pkey", "id")));
    List<SchemaChange> changes = tracker.onRelation(relation(5, "t", id(), c("v", TEXT, false), c("n", INT4, false)));
    assertEquals("v", ((SchemaChange.DropColumn) changes.get(0)).column());
    assertEquals(List.of("v", "n"), changes.subList(1, 3).stream()
        .map(ch -> ((SchemaChange.AddColumn) ch).column().name()).toList());
  }

  @Test
  void aRetypedKeyColumnCopiesTheTableAgain() {
    catalog.now = schema(table(1, "t", List.of(col("id", 1, "int8", true), col("v", 2, "text", false)),
        pk("t_pkey", "id")));
    List<SchemaChange> changes = tracker.onRelation(relation(5, "t", c("id", INT8, true), c("v", TEXT, false)));
    assertTrue(changes.get(0) instanceof SchemaChange.DropTable, changes.toString());
    SchemaChange.CreateTable ct = (SchemaChange.CreateTable) changes.get(1);
    assertEquals(List.of("id", "v"), List.copyOf(ct.backfill().keySet()));
  }

  @Test
  void theStreamsKeyWinsOverACatalogThatMovedOn() {
    // The catalog's key is (id, v) already; the Relation message still flags id alone.
    catalog.now = schema(table(1, "t", List.of(col("id", 1, "int4", true), col("v", 2, "text", true),
        col("n", 3, "int4", false)), pk("t_pkey", "id", "v")));
    tracker.onRelation(relation(5, "t", id(), c("v", TEXT, false), c("n", INT4, false)));
    assertEquals(List.of("id"), tracker.relation(new QualifiedName("public", "t"), List.of()).rowKey().columns());
  }

  @Test
  void anUnknownTableIsCreatedAndBackfilledWhole() {
    PublishedSchema.Table u = new PublishedSchema.Table(2, 2200, "public", "u", "d",
        List.of(col("k", 1, "text", true)), List.of(pk("u_pkey", "k"), index("u_k_desc", false, "k DESC")));
    catalog.now = schema(T, u);
    List<SchemaChange> changes = tracker.onRelation(new ReplicationEvent.Relation(9, 2, "public", "u", 'd',
        List.of(c("k", TEXT, true))));
    SchemaChange.CreateTable ct = (SchemaChange.CreateTable) changes.get(0);
    assertEquals("u", ct.spec().name());
    assertNotNull(ct.backfill(), "a table the stream meets may hold rows");
    assertTrue(changes.get(1) instanceof SchemaChange.CreateIndex, "the catalog's index comes with it");
  }

  @Test
  void aBurstOfRelationMessagesReadsTheCatalogOnce() {
    List<PublishedSchema.Table> now = new ArrayList<>();
    for (int i = 2; i < 12; i++) {
      now.add(new PublishedSchema.Table(i, 2200, "public", "t" + i, "d", List.of(col("id", 1, "int4", true)),
          List.of(pk("t" + i + "_pkey", "id"))));
    }
    catalog.now = new PublishedSchema("pub", now);
    for (int i = 2; i < 12; i++) {
      tracker.onRelation(new ReplicationEvent.Relation(9, i, "public", "t" + i, 'd', List.of(id())));
    }
    assertEquals(1, catalog.reads);
    assertEquals(11, tracker.current().tables().size());
  }

  private static byte[] check(String snapshot, PublishedSchema s) {
    return check(snapshot, s, Map.of());
  }

  private static byte[] check(String snapshot, PublishedSchema s, Map<Long, Long> membership) {
    return CatalogCheck.message(snapshot, PublishedSchemaWriter.toJson(s).toString(), membership)
        .getBytes(StandardCharsets.UTF_8);
  }

  @Test
  void aCatalogCheckAddsAndRemovesTables() {
    PublishedSchema.Table u = new PublishedSchema.Table(2, 2200, "public", "u", "d",
        List.of(col("k", 1, "text", true)), List.of(pk("u_pkey", "k")));
    List<SchemaChange> added = tracker.onCatalogCheck(check("100:100:", schema(T, u)));
    assertEquals("u", ((SchemaChange.CreateTable) added.get(0)).spec().name());
    assertNotNull(((SchemaChange.CreateTable) added.get(0)).backfill());
    List<SchemaChange> removed = tracker.onCatalogCheck(check("101:101:", schema(u)));
    assertEquals(new QualifiedName("public", "t"), ((SchemaChange.DropTable) removed.get(0)).id());
  }

  @Test
  void aCatalogCheckOlderThanTheStreamsDescriptionLeavesTheTableAlone() {
    catalog.now = schema(table(1, "t", List.of(col("id", 1, "int4", true), col("v", 2, "text", false),
        col("n", 3, "int4", false)), pk("t_pkey", "id")));
    tracker.onRelation(relation(105, "t", id(), c("v", TEXT, false), c("n", INT4, false)));
    // The check's snapshot (xmax 104, and 103 in progress) saw neither xid 105 nor 103: its t is older.
    assertEquals(List.of(), tracker.onCatalogCheck(check("100:104:103", schema())));
    assertEquals(3, tracker.current().tables().get(0).columns().size());
    assertEquals(List.of(), tracker.onCatalogCheck(check("100:110:105", schema())), "105 still in progress");
    // One that saw it is newer: t was taken out of the publication since.
    List<SchemaChange> changes = tracker.onCatalogCheck(check("106:106:", schema()));
    assertTrue(changes.get(0) instanceof SchemaChange.DropTable, changes.toString());
    assertEquals(Map.of(), tracker.describedBy());
  }

  @Test
  void snapshotsCompareXidsAcrossWraparound() {
    // 64-bit xids of epoch 1 near the 32-bit wrap; the stream's xid 5 came after 4294967290.
    long epoch = 1L << 32;
    CatalogCheck c = CatalogCheck.parse(check((epoch + 4294967290L) + ":" + (epoch + 4294967295L) + ":", schema()));
    assertTrue(c.sees(4294967289L));
    assertTrue(!c.sees(5), "an xid after the wrap is after xmax");
    assertTrue(!c.sees(4294967295L), "xmax itself is not seen");
  }

  @Test
  void aRowOfATableACheckTookOutIsDescribedAgainFromItsLastRelationMessage() {
    tracker.onRelation(relation(105, "t", id(), c("v", TEXT, false)));
    tracker.onCatalogCheck(check("106:106:", schema()));
    List<SchemaChange> again = tracker.onUnknownTable(new QualifiedName("public", "t"));
    assertEquals("t", ((SchemaChange.CreateTable) again.get(0)).spec().name());
  }

  @Test
  void markAndRestoreCoverWhatTheStreamDescribed() {
    SchemaTracker.Mark before = tracker.mark();
    catalog.now = schema(table(1, "t", List.of(col("id", 1, "int4", true), col("v", 2, "text", false),
        col("n", 3, "int4", false)), pk("t_pkey", "id")));
    tracker.onRelation(relation(105, "t", id(), c("v", TEXT, false), c("n", INT4, false)));
    tracker.restore(before);
    assertEquals(Map.of(), tracker.describedBy());
    assertEquals(before.version(), tracker.version());
    assertEquals(2, tracker.current().tables().get(0).columns().size());
  }

  @Test
  void twoColumnsThatSwappedNamesAreRenamedThroughANameOfTheirOwn() {
    // t(id, v text) and w text at attnum 3; then v and w swap names (three renames).
    PublishedSchema.Table two = table(1, "t", List.of(col("id", 1, "int4", true), col("v", 2, "text", false),
        col("w", 3, "text", false)), pk("t_pkey", "id"));
    SchemaTracker swapped = new SchemaTracker(schema(two), Map.of(), Map.of(), new ProtocolSpecs(true),
        DdlDetection.REPLICATION_STREAM, catalog);
    catalog.now = schema(table(1, "t", List.of(col("id", 1, "int4", true), col("w", 2, "text", false),
        col("v", 3, "text", false)), pk("t_pkey", "id")));
    List<SchemaChange> changes = swapped.onRelation(relation(5, "t", id(), c("w", TEXT, false), c("v", TEXT, false)));
    List<String> renames = changes.stream().map(ch -> {
      SchemaChange.UpdateColumn u = (SchemaChange.UpdateColumn) ch;
      return u.old().name() + ">" + u.updated().name();
    }).toList();
    assertEquals(List.of("v>v (renamed)", "w>v", "v (renamed)>w"), renames,
        "the same names and types, in another order: a swap, applied one rename at a time");
  }

  @Test
  void aTableCreatedAgainUnderItsNameReplacesTheOldOne() {
    PublishedSchema.Table again = new PublishedSchema.Table(9, 2200, "public", "t", "d",
        List.of(col("id", 1, "int4", true), col("v", 2, "text", false)), List.of(pk("t_pkey", "id")));
    catalog.now = schema(again);
    List<SchemaChange> changes = tracker.onRelation(new ReplicationEvent.Relation(5, 9, "public", "t", 'd',
        List.of(id(), c("v", TEXT, false))));
    assertTrue(changes.get(0) instanceof SchemaChange.DropTable, changes.toString());
    assertEquals(9L, ((SchemaChange.CreateTable) changes.get(1)).metadata().relationOid());
    assertTrue(tracker.replicates(new QualifiedName("public", "t")), "the new table's rows are replicated");
  }

  @Test
  void aColumnOfATypeDroppedSinceKeepsItsTrackedType() {
    PublishedSchema.Table withEnum = table(1, "t", List.of(col("id", 1, "int4", true),
        new PublishedSchema.Column("m", 2, "mood", "e", null, null, false, null)), pk("t_pkey", "id"));
    SchemaTracker enums = new SchemaTracker(schema(withEnum), Map.of(), Map.of(), new ProtocolSpecs(true),
        DdlDetection.REPLICATION_STREAM, catalog);
    catalog.now = schema(table(1, "t", List.of(col("id", 1, "int4", true), col("m", 2, "text", false)),
        pk("t_pkey", "id")));
    // A new session describes the table with the enum's OID, which the catalog no longer has.
    assertEquals(List.of(), enums.onRelation(relation(5, "t", id(), c("m", 99999, false))));
  }

  @Test
  void aStreamTrackedSchemaSwitchesToEventTriggersAtTheirFirstReport() {
    tracker.switchToEventTriggersWhenTheyReport();
    PublishedSchema after = schema(table(1, "t", List.of(col("id", 1, "int4", true), col("v", 2, "text", false),
        col("n", 3, "int4", false)), pk("t_pkey", "id")));
    byte[] ddl = ("{\"type\":\"ddlUpdate\",\"tag\":\"ALTER TABLE\",\"schema\":" + PublishedSchemaWriter.toJson(after)
        + "}").getBytes(StandardCharsets.UTF_8);
    SchemaTracker.Mark before = tracker.mark();
    List<SchemaChange> changes = tracker.onDdlMessage(ddl);
    assertEquals(DdlDetection.EVENT_TRIGGERS, tracker.detection());
    assertEquals("n", ((SchemaChange.AddColumn) changes.get(0)).column().name());
    assertEquals(List.of(), tracker.onCatalogCheck(check("1:1:", schema())), "checks are ignored from then on");
    tracker.restore(before);
    assertEquals(DdlDetection.REPLICATION_STREAM, tracker.detection(), "a cut transaction goes back to the stream");
  }

  @Test
  void aTableTakenOutOfThePublicationAndPutBackBetweenTwoChecksIsCopiedAgainWhole() {
    assertEquals(List.of(), tracker.onCatalogCheck(check("10:10:", schema(T), Map.of(1L, 16400L))));
    // ALTER PUBLICATION ... DROP TABLE t, rows changed, ADD TABLE t: a new pg_publication_rel row.
    List<SchemaChange> changes = tracker.onCatalogCheck(check("20:20:", schema(T), Map.of(1L, 16410L)));
    assertTrue(changes.get(0) instanceof SchemaChange.DropTable, changes.toString());
    assertNotNull(((SchemaChange.CreateTable) changes.get(1)).backfill());
    assertEquals(Map.of(1L, 16410L), tracker.membership());
    assertEquals(List.of(), tracker.onCatalogCheck(check("30:30:", schema(T), Map.of(1L, 16410L))));
  }

  @Test
  void withEventTriggersRelationMessagesAndChecksAreIgnored() {
    SchemaTracker triggers = new SchemaTracker(schema(T), new ProtocolSpecs(true));
    assertEquals(List.of(), triggers.onRelation(relation(5, "t", id())));
    assertEquals(List.of(), triggers.onCatalogCheck(check("1:1:", schema())));
  }
}
