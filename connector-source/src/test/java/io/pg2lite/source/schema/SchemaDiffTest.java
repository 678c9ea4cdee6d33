package io.pg2lite.source.schema;

import static io.pg2lite.source.schema.Schemas.col;
import static io.pg2lite.source.schema.Schemas.index;
import static io.pg2lite.source.schema.Schemas.pk;
import static io.pg2lite.source.schema.Schemas.schema;
import static io.pg2lite.source.schema.Schemas.table;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pg2lite.protocol.message.SchemaChange;
import io.pg2lite.protocol.schema.QualifiedName;
import java.util.List;
import org.junit.jupiter.api.Test;

class SchemaDiffTest {
  private final SchemaDiff diff = new SchemaDiff(new ProtocolSpecs(true));

  private static List<String> tags(List<SchemaChange> changes) {
    return changes.stream().map(SchemaChange::tag).toList();
  }

  @Test
  void emitsChangesInTheReferenceOrder() {
    PublishedSchema before = schema(
        table(1, "keep", List.of(col("id", 1, "int4", true), col("gone", 2, "text", false), col("old", 3, "int4", false)),
            pk("keep_pkey", "id"), index("keep_old", false, "old")),
        table(2, "dropped", List.of(col("id", 1, "int4", true)), pk("dropped_pkey", "id")));
    PublishedSchema after = schema(
        table(1, "kept", List.of(col("id", 1, "int4", true), col("renamed", 3, "int4", false), col("added", 4, "text", false)),
            pk("keep_pkey", "id"), index("keep_new", true, "added")),
        table(3, "created", List.of(col("k", 1, "text", true)), pk("created_pkey", "k")));
    List<SchemaChange> changes = diff.diff(before, after, "ALTER TABLE");
    assertEquals(List.of("drop-index", "drop-table", "rename-table", "drop-column", "update-column", "add-column",
        "create-table", "create-index"), tags(changes));
    SchemaChange.CreateTable created = (SchemaChange.CreateTable) changes.get(6);
    assertNotNull(created.backfill(), "a table that appears through ALTER is backfilled");
  }

  @Test
  void aCreatedTableIsNotBackfilledButOneAddedByAlterPublicationIs() {
    PublishedSchema before = schema();
    PublishedSchema after = schema(table(7, "t", List.of(col("id", 1, "int4", true)), pk("t_pkey", "id")));
    assertNull(((SchemaChange.CreateTable) diff.diff(before, after, "CREATE TABLE").get(0)).backfill());
    assertEquals(List.of("id"), List.copyOf(((SchemaChange.CreateTable) diff.diff(before, after, "ALTER PUBLICATION")
        .get(0)).backfill().keySet()));
    assertNotNull(((SchemaChange.CreateTable) diff.diff(before, after, "CREATE TABLE AS").get(0)).backfill(),
        "CREATE TABLE AS creates rows");
  }

  @Test
  void columnsAreMatchedByAttnumSoARenameIsAnUpdate() {
    PublishedSchema before = schema(table(1, "t", List.of(col("id", 1, "int4", true), col("a", 2, "text", false)),
        pk("t_pkey", "id")));
    PublishedSchema after = schema(table(1, "t", List.of(col("id", 1, "int4", true), col("b", 2, "text", false)),
        pk("t_pkey", "id")));
    List<SchemaChange> changes = diff.diff(before, after, "ALTER TABLE");
    assertEquals(1, changes.size());
    SchemaChange.UpdateColumn u = (SchemaChange.UpdateColumn) changes.get(0);
    assertEquals("a", u.old().name());
    assertEquals("b", u.updated().name());
  }

  @Test
  void defaultChangesAloneEmitNothing() {
    PublishedSchema before = schema(table(1, "t", List.of(col("id", 1, "int4", true)), pk("t_pkey", "id")));
    PublishedSchema.Column withDefault = new PublishedSchema.Column("id", 1, "int4", "b", null, null, true, "5");
    PublishedSchema after = schema(table(1, "t", List.of(withDefault), pk("t_pkey", "id")));
    assertEquals(List.of(), diff.diff(before, after, "ALTER TABLE"));
  }

  @Test
  void addedColumnsWithVolatileDefaultsAreBackfilled() {
    PublishedSchema before = schema(table(1, "t", List.of(col("id", 1, "int4", true)), pk("t_pkey", "id")));
    PublishedSchema.Column constant = new PublishedSchema.Column("c", 2, "text", "b", null, null, false, "'x'::text");
    PublishedSchema.Column volatileDefault = new PublishedSchema.Column("v", 3, "uuid", "b", null, null, false,
        "gen_random_uuid()");
    PublishedSchema after = schema(table(1, "t", List.of(col("id", 1, "int4", true), constant, volatileDefault),
        pk("t_pkey", "id")));
    List<SchemaChange> changes = diff.diff(before, after, "ALTER TABLE");
    SchemaChange.AddColumn c = (SchemaChange.AddColumn) changes.get(0);
    SchemaChange.AddColumn v = (SchemaChange.AddColumn) changes.get(1);
    assertNull(c.backfill());
    assertEquals("'x'", c.column().spec().dflt(), "the wire form: no cast");
    assertEquals(3, v.backfill().attNum());
    assertNull(v.column().spec().dflt());
  }

  @Test
  void aKeyChangeUpdatesTheTableMetadata() {
    PublishedSchema before = schema(table(1, "t", List.of(col("id", 1, "int4", true), col("alt", 2, "int4", true)),
        pk("t_pkey", "id")));
    PublishedSchema after = schema(table(1, "t", List.of(col("id", 1, "int4", true), col("alt", 2, "int4", true)),
        pk("t_pkey", "alt")));
    SchemaChange.UpdateTableMetadata u = (SchemaChange.UpdateTableMetadata) diff.diff(before, after, "ALTER TABLE").get(0);
    assertEquals(List.of("id"), List.copyOf(u.old().rowKey().keySet()));
    assertEquals(List.of("alt"), List.copyOf(u.updated().rowKey().keySet()));
  }

  @Test
  void anIndexWhoseShapeChangedIsDroppedAndRecreated() {
    PublishedSchema before = schema(table(1, "t", List.of(col("id", 1, "int4", true), col("a", 2, "int4", false)),
        pk("t_pkey", "id"), index("t_a", false, "a")));
    PublishedSchema after = schema(table(1, "t", List.of(col("id", 1, "int4", true), col("a", 2, "int4", false)),
        pk("t_pkey", "id"), index("t_a", false, "a DESC")));
    assertEquals(List.of("drop-index", "create-index"), tags(diff.diff(before, after, "ALTER INDEX")));
  }

  @Test
  void rejectsWhatTheReplicaCannotHold() {
    PublishedSchema before = schema();
    PublishedSchema reserved = schema(table(1, "t", List.of(col("_0_version", 1, "text", true)), pk("p", "_0_version")));
    SchemaDiff.UnsupportedSchemaChangeException e = assertThrows(SchemaDiff.UnsupportedSchemaChangeException.class,
        () -> diff.diff(before, reserved, "CREATE TABLE"));
    assertTrue(e.getMessage().contains("_0_version"));
    PublishedSchema nothing = schema(new PublishedSchema.Table(1, 2200, "public", "t", "n",
        List.of(col("id", 1, "int4", true)), List.of()));
    e = assertThrows(SchemaDiff.UnsupportedSchemaChangeException.class, () -> diff.diff(before, nothing, "ALTER TABLE"));
    assertTrue(e.getMessage().contains("REPLICA IDENTITY NOTHING"));
  }

  @Test
  void tableNamesInChangesAreQualified() {
    PublishedSchema before = schema(table(1, "t", List.of(col("id", 1, "int4", true)), pk("t_pkey", "id")));
    assertEquals(List.of(new SchemaChange.DropTable(new QualifiedName("public", "t"))),
        diff.diff(before, schema(), "DROP TABLE"));
  }

  /** ADR 0008: Postgres rewrote the values (USING); the replica gets them again from a copy. */
  @Test
  void aRetypedColumnIsDroppedAndAddedAgainWithABackfillAndItsIndexesRecreated() {
    PublishedSchema before = schema(table(1, "t", List.of(col("id", 1, "int4", true), col("f", 2, "float4", false),
        col("other", 3, "text", false)), pk("t_pkey", "id"), index("t_f", false, "f"), index("t_other", false, "other")));
    PublishedSchema after = schema(table(1, "t", List.of(col("id", 1, "int4", true), col("g", 2, "text", false),
        col("other", 3, "text", false)), pk("t_pkey", "id"), index("t_f", false, "g"), index("t_other", false, "other")));
    List<SchemaChange> changes = diff.diff(before, after, "ALTER TABLE");
    assertEquals(List.of("drop-index", "drop-column", "add-column", "create-index"), tags(changes),
        "renamed and retyped at once; the index on the other column is untouched");
    assertEquals(new SchemaChange.DropColumn(new QualifiedName("public", "t"), "f"), changes.get(1));
    SchemaChange.AddColumn add = (SchemaChange.AddColumn) changes.get(2);
    assertEquals("g", add.column().name());
    assertEquals("text", add.column().spec().dataType());
    assertEquals(2, add.backfill().attNum());
    assertEquals("t_f", ((SchemaChange.CreateIndex) changes.get(3)).spec().name());
  }

  @Test
  void aNotNullChangeAloneStaysAnUpdateColumn() {
    PublishedSchema before = schema(table(1, "t", List.of(col("id", 1, "int4", true), col("a", 2, "text", false)),
        pk("t_pkey", "id")));
    PublishedSchema after = schema(table(1, "t", List.of(col("id", 1, "int4", true), col("a", 2, "text", true)),
        pk("t_pkey", "id")));
    assertEquals(List.of("update-column"), tags(diff.diff(before, after, "ALTER TABLE")));
  }

  /** Rows merge by their key, so a table whose key column was rewritten is copied again whole. */
  @Test
  void aRetypedKeyColumnCopiesTheWholeTableAgain() {
    PublishedSchema before = schema(table(1, "t", List.of(col("id", 1, "int4", true), col("v", 2, "text", false)),
        pk("t_pkey", "id"), index("t_v", false, "v")));
    PublishedSchema after = schema(table(1, "t", List.of(col("id", 1, "text", true), col("v", 2, "text", false)),
        pk("t_pkey", "id"), index("t_v", false, "v")));
    List<SchemaChange> changes = diff.diff(before, after, "ALTER TABLE");
    assertEquals(List.of("drop-index", "drop-table", "create-table", "create-index"), tags(changes));
    SchemaChange.CreateTable created = (SchemaChange.CreateTable) changes.get(2);
    assertEquals(List.of("id", "v"), List.copyOf(created.backfill().keySet()));
    assertEquals("text", created.spec().columns().get("id").dataType());
  }

  /** numeric(10,2) to numeric(10,1) rounds every value, bpchar(5) to bpchar(10) pads it: copied again. */
  @Test
  void aModifierThatChangesValuesIsARetypeButAVarcharLengthIsNot() {
    PublishedSchema before = schema(table(1, "t", List.of(col("id", 1, "int4", true),
        new PublishedSchema.Column("n", 2, "numeric", "b", null, null, false, null, 655366),
        new PublishedSchema.Column("v", 3, "varchar", "b", null, 10, false, null, 14)), pk("t_pkey", "id")));
    PublishedSchema after = schema(table(1, "t", List.of(col("id", 1, "int4", true),
        new PublishedSchema.Column("n", 2, "numeric", "b", null, null, false, null, 655365),
        new PublishedSchema.Column("v", 3, "varchar", "b", null, 20, false, null, 24)), pk("t_pkey", "id")));
    List<SchemaChange> changes = diff.diff(before, after, "ALTER TABLE");
    assertEquals(List.of("drop-column", "add-column"), tags(changes));
    assertEquals("n", ((SchemaChange.AddColumn) changes.get(1)).column().name());
  }

  /** ADD COLUMN k ... DEFAULT now(), ADD PRIMARY KEY (id, k): the replica cannot key rows on k before the copy. */
  @Test
  void aNewKeyOnAColumnAddedWithABackfillCopiesTheWholeTableAgain() {
    PublishedSchema before = schema(table(1, "t", List.of(col("id", 1, "int4", true)), pk("t_pkey", "id")));
    PublishedSchema.Column k = new PublishedSchema.Column("k", 2, "timestamptz", "b", null, null, true, "now()");
    PublishedSchema after = schema(table(1, "t", List.of(col("id", 1, "int4", true), k), pk("t_pkey", "id", "k")));
    assertEquals(List.of("drop-table", "create-table"), tags(diff.diff(before, after, "ALTER TABLE")));
    PublishedSchema.Column constant = new PublishedSchema.Column("k", 2, "int4", "b", null, null, true, "0");
    PublishedSchema withConstant = schema(table(1, "t", List.of(col("id", 1, "int4", true), constant),
        pk("t_pkey", "id", "k")));
    assertEquals(List.of("update-table-metadata", "add-column"), tags(diff.diff(before, withConstant, "ALTER TABLE")),
        "a constant default gives every replica row its key value at once");
  }

  /**
   * The same two statements in two transactions, the second before the copy of k completed:
   * replicas stopped there ("the replica cannot key rows on it"). Now the table is copied again
   * whole, as when one command does both; once k is copied, the new key is a plain metadata change.
   */
  @Test
  void aNewKeyOnAColumnStillBeingCopiedCopiesTheWholeTableAgain() {
    PublishedSchema.Column k = new PublishedSchema.Column("k", 2, "timestamptz", "b", null, null, true, "now()");
    PublishedSchema before = schema(table(1, "t", List.of(col("id", 1, "int4", true), k), pk("t_pkey", "id")));
    PublishedSchema after = schema(table(1, "t", List.of(col("id", 1, "int4", true), k), pk("t_pkey", "id", "k")));
    QualifiedName t = new QualifiedName("public", "t");
    SchemaDiff copyingK = new SchemaDiff(new ProtocolSpecs(true), (table, column) -> table.equals(t) && column.equals("k"));
    List<SchemaChange> changes = copyingK.diff(before, after, "ALTER TABLE");
    assertEquals(List.of("drop-table", "create-table"), tags(changes));
    assertEquals(List.of("id", "k"), List.copyOf(((SchemaChange.CreateTable) changes.get(1)).backfill().keySet()),
        "every column copied again");
    assertEquals(List.of("update-table-metadata"), tags(diff.diff(before, after, "ALTER TABLE")),
        "k copied already: the replica has its values");
    SchemaDiff copyingOther = new SchemaDiff(new ProtocolSpecs(true), (table, column) -> column.equals("other"));
    assertEquals(List.of("update-table-metadata"), tags(copyingOther.diff(before, after, "ALTER TABLE")));
  }
}
