package io.pg2lite.sink.apply;

import static io.pg2lite.sink.apply.Tables.ITEM;
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
}
