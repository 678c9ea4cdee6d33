package io.pg2lite.replica.apply;

import static io.pg2lite.replica.apply.Tables.ITEM;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pg2lite.protocol.message.SchemaChange;
import io.pg2lite.protocol.schema.BackfillId;
import io.pg2lite.protocol.schema.Column;
import io.pg2lite.protocol.schema.ColumnSpec;
import io.pg2lite.protocol.schema.IndexSpec;
import io.pg2lite.protocol.schema.QualifiedName;
import io.pg2lite.protocol.schema.Relation;
import io.pg2lite.protocol.schema.RowKey;
import io.pg2lite.protocol.schema.SortDirection;
import io.pg2lite.protocol.testing.ChangeMessages;
import io.pg2lite.protocol.value.Row;
import io.pg2lite.protocol.value.Value;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Schema changes on a real SQLite file. */
class DdlApplyTest {
  private static final QualifiedName T = new QualifiedName("public", "item");

  @TempDir
  Path dir;

  private ReplicaHarness withItem() throws Exception {
    ReplicaHarness h = new ReplicaHarness(dir);
    h.feed(ChangeMessages.after("0/100").begin(1).change(Tables.createItem())
        .insert(ITEM, Row.of("id", Value.of(1), "name", Value.of("one"), "price", Value.of("5")))
        .commit("0/200").entries());
    return h;
  }

  private static List<String> columns(ReplicaHarness h, String table) throws Exception {
    return h.query("SELECT name FROM pragma_table_info('" + table + "') ORDER BY cid").stream()
        .map(r -> (String) r.get(0)).toList();
  }

  @Test
  void addColumnWithAConstantDefaultFillsExistingRows() throws Exception {
    try (ReplicaHarness h = withItem()) {
      h.feed(ChangeMessages.after("0/200").begin(2).change(new SchemaChange.AddColumn(T,
          new Column("qty", ColumnSpec.of(7, "int4").withDflt("7")), null, null)).commit("0/300").entries());
      assertEquals(List.of(List.of(1, 7)), h.query("SELECT id, qty FROM item"));
    }
  }

  @Test
  void aBackfilledColumnStaysHiddenUntilCompleted() throws Exception {
    try (ReplicaHarness h = withItem()) {
      h.feed(ChangeMessages.after("0/200").begin(2).change(new SchemaChange.AddColumn(T,
          new Column("created", ColumnSpec.of(7, "timestamptz")), null, new BackfillId(7))).commit("0/300").entries());
      assertEquals(List.of(List.of("created", "{\"attNum\":7}")),
          h.query("SELECT column_name, backfill FROM \"_pg2lite.columns\" WHERE backfill IS NOT NULL"));
      h.feed(ChangeMessages.after("0/300").begin(3).change(new SchemaChange.BackfillCompleted(
          new Relation("public", "item", RowKey.of("id")), List.of("created"),
          io.pg2lite.protocol.watermark.Watermark.fromLsn("0/280"), null)).commit("0/400").entries());
      assertEquals(List.of(), h.query("SELECT column_name FROM \"_pg2lite.columns\" WHERE backfill IS NOT NULL"));
    }
  }

  @Test
  void renameRetypeAndDropColumnsKeepDataAndIndexes() throws Exception {
    try (ReplicaHarness h = withItem()) {
      Map<String, SortDirection> idx = Map.of("price", SortDirection.DESC);
      h.feed(ChangeMessages.after("0/200").begin(2)
          .change(new SchemaChange.CreateIndex(new IndexSpec("public", "item", "item_price", false, idx)))
          .change(new SchemaChange.UpdateColumn(T, new Column("price", ColumnSpec.of(3, "numeric")),
              new Column("cost", ColumnSpec.of(3, "int8"))))
          .change(new SchemaChange.DropColumn(T, "ok"))
          .commit("0/300").entries());
      // A retyped column moves to the end: SQLite can only add columns there (as in the reference).
      assertEquals(List.of("id", "name", "data", "tags", "_0_version", "cost"), columns(h, "item"));
      assertEquals(List.of(List.of(1, 5)), h.query("SELECT id, cost FROM item"), "values kept, retyped to integer");
      assertEquals("integer", h.query("SELECT typeof(cost) FROM item").get(0).get(0));
      assertEquals(List.of(List.of("item_price")), h.query(
          "SELECT name FROM sqlite_master WHERE type = 'index' AND name = 'item_price'"), "index re-created");
    }
  }

  @Test
  void renameAndDropTable() throws Exception {
    try (ReplicaHarness h = withItem()) {
      h.feed(ChangeMessages.after("0/200").begin(2)
          .change(new SchemaChange.RenameTable(T, new QualifiedName("archive", "old_item"))).commit("0/300").entries());
      assertEquals(List.of(List.of(1)), h.query("SELECT id FROM \"archive.old_item\""));
      Relation moved = new Relation("archive", "old_item", RowKey.of("id"));
      h.feed(ChangeMessages.after("0/300").begin(3).insert(moved, Row.of("id", Value.of(2))).commit("0/400").entries());
      assertEquals(2, h.query("SELECT id FROM \"archive.old_item\"").size(), "writes follow the new name");
      h.feed(ChangeMessages.after("0/400").begin(4)
          .change(new SchemaChange.DropTable(new QualifiedName("archive", "old_item"))).commit("0/500").entries());
      assertTrue(h.query("SELECT name FROM sqlite_master WHERE name = 'archive.old_item'").isEmpty());
      assertTrue(h.query("SELECT * FROM \"_pg2lite.tables\"").isEmpty());
    }
  }

  @Test
  void theRowKeyHasAUniqueIndexThatFollowsKeyChanges() throws Exception {
    try (ReplicaHarness h = withItem()) {
      assertEquals(List.of(List.of(1)), h.query(
          "SELECT \"unique\" FROM pragma_index_list('item') WHERE name = 'item.pg2lite_row_key'"));
      h.feed(ChangeMessages.after("0/200").begin(2).change(new SchemaChange.UpdateTableMetadata(T,
          new io.pg2lite.protocol.schema.TableMetadata(2200, 1, Map.of("id", 1)),
          new io.pg2lite.protocol.schema.TableMetadata(2200, 1, Map.of("name", 2)))).commit("0/300").entries());
      assertEquals(List.of(List.of("name")), h.query("SELECT name FROM pragma_index_info('item.pg2lite_row_key')"));
    }
  }

  /** A row key in key order (TableMetadata keeps the map's order, as the codec does). */
  private static Map<String, Integer> key(Object... nameAttnum) {
    Map<String, Integer> out = new java.util.LinkedHashMap<>();
    for (int i = 0; i < nameAttnum.length; i += 2) {
      out.put((String) nameAttnum[i], (Integer) nameAttnum[i + 1]);
    }
    return out;
  }

  private static SchemaChange.UpdateTableMetadata newKey(Map<String, Integer> from, Map<String, Integer> to) {
    return new SchemaChange.UpdateTableMetadata(T, new io.pg2lite.protocol.schema.TableMetadata(2200, 1, from),
        new io.pg2lite.protocol.schema.TableMetadata(2200, 1, to));
  }

  private static List<String> keyIndexColumns(ReplicaHarness h) throws Exception {
    return h.query("SELECT name FROM pragma_index_info('item.pg2lite_row_key') ORDER BY seqno").stream()
        .map(r -> (String) r.get(0)).toList();
  }

  /**
   * RENAME COLUMN of a key column: the source sends the new key (update-table-metadata) before the
   * rename (update-column), as the reference orders them. Building the index on the new name at
   * once made SQLite index the string 'key' and the rename fail on "no such column".
   */
  @Test
  void renamingAKeyColumnMovesTheKeyIndexToTheNewName() throws Exception {
    try (ReplicaHarness h = withItem()) {
      h.feed(ChangeMessages.after("0/200").begin(2)
          .change(newKey(key("id", 1), key("key", 1)))
          .change(new SchemaChange.UpdateColumn(T, new Column("id", ColumnSpec.of(1, "int8")),
              new Column("key", ColumnSpec.of(1, "int8"))))
          .commit("0/300").entries());
      assertEquals(List.of("key"), keyIndexColumns(h));
      Relation renamed = new Relation("public", "item", RowKey.of("key"));
      h.feed(ChangeMessages.after("0/300").begin(3)
          .insert(renamed, Row.of("key", Value.of(2), "name", Value.of("two")))
          .insert(renamed, Row.of("key", Value.of(2), "name", Value.of("deux")))
          .update(renamed, Row.of("key", Value.of(1)), Row.of("key", Value.of(3), "name", Value.of("three")))
          .commit("0/400").entries());
      assertEquals(List.of(List.of(2, "deux"), List.of(3, "three")), h.query("SELECT key, name FROM item ORDER BY key"),
          "the upsert keys on the renamed column");
      h.reopen();
      assertEquals(List.of(List.of("[\"key\"]")), h.query("SELECT row_key FROM \"_pg2lite.tables\""),
          "the stored key follows the rename, so a reopened replica keys on it too");
    }
  }

  /** ALTER TABLE ... ADD COLUMN k ... NOT NULL DEFAULT 0, ... ADD PRIMARY KEY (id, k): the key names k before k exists. */
  @Test
  void aKeyExtendedByAColumnAddedInTheSameCommandIsIndexedOnceTheColumnExists() throws Exception {
    try (ReplicaHarness h = withItem()) {
      h.feed(ChangeMessages.after("0/200").begin(2)
          .insert(ITEM, Row.of("id", Value.of(2), "name", Value.of("two")))
          .change(newKey(key("id", 1), key("id", 1, "k", 7)))
          .change(new SchemaChange.AddColumn(T, new Column("k", ColumnSpec.of(7, "int4").withDflt("0")), null, null))
          .commit("0/300").entries());
      assertEquals(List.of("id", "k"), keyIndexColumns(h));
      Relation composite = new Relation("public", "item", RowKey.of("id", "k"));
      h.feed(ChangeMessages.after("0/300").begin(3)
          .insert(composite, Row.of("id", Value.of(1), "k", Value.of(1), "name", Value.of("one/1")))
          .insert(composite, Row.of("id", Value.of(1), "k", Value.of(0), "name", Value.of("one/0")))
          .commit("0/400").entries());
      assertEquals(List.of(List.of(1, 0, "one/0"), List.of(1, 1, "one/1"), List.of(2, 0, "two")),
          h.query("SELECT id, k, name FROM item ORDER BY id, k"));
    }
  }

  /** A log whose new key names a column no schema change adds is refused at its first row change, by name. */
  @Test
  void aRowChangeForAKeyNamingAMissingColumnIsRefused() throws Exception {
    try (ReplicaHarness h = withItem()) {
      h.feed(ChangeMessages.after("0/200").begin(2).change(newKey(key("id", 1), key("id", 1, "ghost", 9)))
          .commit("0/300").entries());
      Relation composite = new Relation("public", "item", RowKey.of("id", "ghost"));
      ApplyException e = org.junit.jupiter.api.Assertions.assertThrows(ApplyException.class,
          () -> h.feed(ChangeMessages.after("0/300").begin(3)
              .insert(composite, Row.of("id", Value.of(5), "name", Value.of("five"))).commit("0/400").entries()));
      assertTrue(e.getMessage().contains("ghost"), e.getMessage());
      assertEquals(List.of(List.of(1)), h.query("SELECT id FROM item"), "nothing of the refused transaction applied");
    }
  }

  /**
   * A key moved onto a column whose backfill is still running would key the rows it has not
   * reached by NULL: refused, by name. (A table copied whole has no such rows: see the next test.)
   */
  @Test
  void aNewKeyOnAColumnStillBeingBackfilledIsRefused() throws Exception {
    try (ReplicaHarness h = withItem()) {
      h.feed(ChangeMessages.after("0/200").begin(2).change(new SchemaChange.AddColumn(T,
          new Column("created", ColumnSpec.of(7, "timestamptz")), null, new BackfillId(7))).commit("0/300").entries());
      ApplyException e = org.junit.jupiter.api.Assertions.assertThrows(ApplyException.class,
          () -> h.feed(ChangeMessages.after("0/300").begin(3).change(newKey(key("id", 1), key("id", 1, "created", 7)))
              .commit("0/400").entries()));
      assertTrue(e.getMessage().contains("created") && e.getMessage().contains("backfilled"), e.getMessage());
      assertEquals(List.of("id"), keyIndexColumns(h), "the replica keeps its last committed key");
    }
  }

  /** A table copied whole holds only rows the live stream wrote, whole: a key change on it is applied. */
  @Test
  void aNewKeyOnATableBeingCopiedWholeIsApplied() throws Exception {
    try (ReplicaHarness h = new ReplicaHarness(dir)) {
      SchemaChange.CreateTable item = Tables.createItem();
      Map<String, BackfillId> all = new java.util.LinkedHashMap<>();
      item.spec().columns().forEach((name, spec) -> all.put(name, new BackfillId(spec.pos())));
      h.feed(ChangeMessages.after("0/100").begin(1).change(new SchemaChange.CreateTable(item.spec(), item.metadata(), all))
          .insert(ITEM, Row.of("id", Value.of(1), "name", Value.of("one"), "price", Value.of("5"), "ok", Value.of(true),
              "data", Value.NULL, "tags", Value.NULL))
          .commit("0/200").entries());
      h.feed(ChangeMessages.after("0/200").begin(2).change(newKey(key("id", 1), key("id", 1, "name", 2)))
          .commit("0/300").entries());
      assertEquals(List.of("id", "name"), keyIndexColumns(h));
    }
  }
}
