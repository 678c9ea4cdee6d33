package io.pg2lite.replica.apply;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pg2lite.protocol.message.DataChange;
import io.pg2lite.protocol.message.SchemaChange;
import io.pg2lite.protocol.schema.BackfillId;
import io.pg2lite.protocol.schema.BackfillStatus;
import io.pg2lite.protocol.schema.Column;
import io.pg2lite.protocol.schema.ColumnSpec;
import io.pg2lite.protocol.schema.IndexSpec;
import io.pg2lite.protocol.schema.QualifiedName;
import io.pg2lite.protocol.schema.Relation;
import io.pg2lite.protocol.schema.RowKey;
import io.pg2lite.protocol.schema.SortDirection;
import io.pg2lite.protocol.schema.TableMetadata;
import io.pg2lite.protocol.schema.TableSpec;
import io.pg2lite.protocol.testing.ChangeMessages;
import io.pg2lite.protocol.value.Row;
import io.pg2lite.protocol.value.Value;
import io.pg2lite.protocol.watermark.Watermark;
import io.pg2lite.replica.lite.SqlNames;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.UnaryOperator;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A table copied whole (published with rows, or a replica's first copy) is visible to readers
 * only once complete: until its {@code backfill-completed} its rows live under
 * {@code _pg2lite.copying.<name>}, and the change that completes it moves or renames it into place in the
 * same SQLite transaction. Every schema change in between follows the stored name.
 */
class CopiedTableVisibilityTest {
  private static final QualifiedName BK_NAME = new QualifiedName("public", "bk");
  private static final Relation BK = new Relation("public", "bk", RowKey.of("id"));
  private static final String COPYING = SqlNames.copying("bk");
  private static final String TABLES_SQL = "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE "
      + "'sqlite%' AND name NOT IN ('_pg2lite.state', '_pg2lite.tables', '_pg2lite.columns', '_pg2lite.changes', "
      + "'_pg2lite.verify') "
      + "ORDER BY name";

  @TempDir
  Path dir;

  /**
   * A copy of more than ReplicaSchema.MOVE_ROWS rows is renamed into place rather than moved
   * (a small one is moved: SQLite's RENAME rewrites the whole schema); readers see the same.
   */
  @Test
  void aLargeCopyIsRenamedIntoPlaceWithItsIndexes() throws Exception {
    try (ReplicaHarness h = new ReplicaHarness(dir)) {
      ChangeMessages m = ChangeMessages.after("0/50");
      createBk().apply(m);
      List<List<Value>> rows = new java.util.ArrayList<>();
      for (int i = 1; i <= 5_001; i++) {
        rows.add(List.of(Value.of(i), Value.of("r" + i)));
      }
      copy("0/150", rows).apply(m);
      m.begin(3).change(new SchemaChange.CreateIndex(index("bk_v"))).commit("0/210");
      m.begin(4).change(completed("0/150")).commit("0/300");
      h.feed(m.entries());
      assertEquals(List.of(List.of("bk")), h.query(TABLES_SQL));
      assertEquals(5_001L, count(h, "bk"));
      assertEquals(List.of(List.of("bk.pg2lite_row_key"), List.of("bk_v")),
          h.query("SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name = 'bk' ORDER BY name"));
    }
  }

  @Test
  void aTableCopiedWholeAppearsOnlyWithAllItsRows() throws Exception {
    try (ReplicaHarness h = new ReplicaHarness(dir)) {
      ChangeMessages m = ChangeMessages.after("0/50");
      createBk().apply(m);
      h.feed(m.entries());
      assertEquals(List.of(List.of(COPYING)), h.query(TABLES_SQL), "created under the copying name");
      assertEquals(List.of(List.of(1)), h.query("SELECT copying FROM \"_pg2lite.tables\" WHERE table_name = 'bk'"));

      int done = m.entries().size();
      copy("0/150", List.of(List.of(Value.of(1), Value.of("a")), List.of(Value.of(2), Value.of("b")))).apply(m);
      m.begin(2).insert(BK, Row.of("id", Value.of(3), "v", Value.of("live"))).commit("0/200");
      m.begin(3).change(new SchemaChange.CreateIndex(index("bk_v"))).commit("0/210");
      h.feed(m.entries().subList(done, m.entries().size()));
      assertEquals(List.of(List.of(COPYING)), h.query(TABLES_SQL), "still hidden: part of the rows are copied");
      assertEquals(3L, count(h, SqlNames.quote(COPYING)), "copied and live rows both wait in the copying table");

      done = m.entries().size();
      m.begin(4).change(completed("0/150")).commit("0/300");
      h.feed(m.entries().subList(done, m.entries().size()));
      assertEquals(List.of(List.of("bk")), h.query(TABLES_SQL), "published under its own name");
      assertEquals(List.of(List.of(1, "a"), List.of(2, "b"), List.of(3, "live")),
          h.query("SELECT id, v FROM bk ORDER BY id"));
      assertEquals(List.of(List.of("bk.pg2lite_row_key"), List.of("bk_v")),
          h.query("SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name = 'bk' ORDER BY name"),
          "its indexes moved with it");
      assertEquals(List.of(List.of(0)), h.query("SELECT copying FROM \"_pg2lite.tables\" WHERE table_name = 'bk'"));

      done = m.entries().size();
      m.begin(5).update(BK, null, Row.of("id", Value.of(1), "v", Value.of("after"))).commit("0/400");
      h.feed(m.entries().subList(done, m.entries().size()));
      assertEquals(List.of(List.of("after")), h.query("SELECT v FROM bk WHERE id = 1"), "writes go to the published table");
    }
  }

  @Test
  void theCopyingStateSurvivesAReopen() throws Exception {
    try (ReplicaHarness h = new ReplicaHarness(dir)) {
      ChangeMessages m = ChangeMessages.after("0/50");
      createBk().apply(m);
      copy("0/150", List.of(List.of(Value.of(1), Value.of("a")))).apply(m);
      h.feed(m.entries());
      h.reopen();
      int done = m.entries().size();
      m.begin(2).insert(BK, Row.of("id", Value.of(2), "v", Value.of("b"))).commit("0/200");
      m.begin(3).change(completed("0/150")).commit("0/300");
      h.feed(m.entries().subList(done, m.entries().size()));
      assertEquals(List.of(List.of(1, "a"), List.of(2, "b")), h.query("SELECT id, v FROM bk ORDER BY id"));
      assertEquals(List.of(List.of("bk")), h.query(TABLES_SQL));
    }
  }

  @Test
  void renameTruncateAndDropFollowTheCopyingName() throws Exception {
    try (ReplicaHarness h = new ReplicaHarness(dir)) {
      ChangeMessages m = ChangeMessages.after("0/50");
      createBk().apply(m);
      copy("0/150", List.of(List.of(Value.of(1), Value.of("a")))).apply(m);
      m.begin(2).change(new SchemaChange.RenameTable(BK_NAME, new QualifiedName("public", "bk2"))).commit("0/200");
      h.feed(m.entries());
      assertEquals(List.of(List.of(SqlNames.copying("bk2"))), h.query(TABLES_SQL), "renamed, still hidden");
      assertEquals(1L, count(h, SqlNames.quote(SqlNames.copying("bk2"))));

      Relation bk2 = new Relation("public", "bk2", RowKey.of("id"));
      int done = m.entries().size();
      m.begin(3).change(new DataChange.Truncate(List.of(bk2))).commit("0/300");
      h.feed(m.entries().subList(done, m.entries().size()));
      assertEquals(0L, count(h, SqlNames.quote(SqlNames.copying("bk2"))), "truncated where it is stored");

      done = m.entries().size();
      m.begin(4).change(new SchemaChange.DropTable(new QualifiedName("public", "bk2"))).commit("0/400");
      h.feed(m.entries().subList(done, m.entries().size()));
      assertEquals(List.of(), h.query(TABLES_SQL), "dropped where it is stored");
      assertEquals(0L, count(h, "\"_pg2lite.tables\""));
    }
  }

  /**
   * A column added with a backfill while the table is copied whole joins the request, and its
   * copy may run second: the table stays hidden until that column is complete too.
   */
  @Test
  void aColumnAddedDuringTheCopyKeepsTheTableHiddenUntilItIsCopiedToo() throws Exception {
    try (ReplicaHarness h = new ReplicaHarness(dir)) {
      ChangeMessages m = ChangeMessages.after("0/50");
      createBk().apply(m);
      m.begin(2).change(new SchemaChange.AddColumn(BK_NAME, new Column("w", ColumnSpec.of(3, "text")), null,
          new BackfillId(3))).commit("0/120");
      copy("0/150", List.of(List.of(Value.of(1), Value.of("a")))).apply(m);
      m.begin(3).change(completed("0/150")).commit("0/300");
      h.feed(m.entries());
      assertEquals(List.of(List.of(COPYING)), h.query(TABLES_SQL), "w is still being copied");

      int done = m.entries().size();
      m.beginBackfill().change(new DataChange.Backfill(BK, List.of("w"), Watermark.fromLsn("0/350"),
          List.of(List.of(Value.of(1), Value.of("w1"))), null)).commitBackfill();
      m.begin(4).change(new SchemaChange.BackfillCompleted(BK, List.of("w"), Watermark.fromLsn("0/350"),
          new BackfillStatus(1, 1, null))).commit("0/400");
      h.feed(m.entries().subList(done, m.entries().size()));
      assertEquals(List.of(List.of("bk")), h.query(TABLES_SQL));
      assertEquals(List.of(List.of(1, "a", "w1")), h.query("SELECT id, v, w FROM bk"));
    }
  }

  @Test
  void aTableWithSomeColumnsNotCopiedIsVisibleAtOnce() throws Exception {
    try (ReplicaHarness h = new ReplicaHarness(dir)) {
      ChangeMessages m = ChangeMessages.after("0/50");
      // Only v is backfilled (the key's values came with the live stream): not a whole-table copy.
      m.begin(1).change(new SchemaChange.CreateTable(spec(), new TableMetadata(2200, 2, Map.of("id", 1)),
          Map.of("v", new BackfillId(2)))).commit("0/100");
      h.feed(m.entries());
      assertEquals(List.of(List.of("bk")), h.query(TABLES_SQL));
    }
  }

  @Test
  void aCopyingTableWhoseHiddenColumnsAreAllDroppedIsPublished() throws Exception {
    try (ReplicaHarness h = new ReplicaHarness(dir)) {
      ChangeMessages m = ChangeMessages.after("0/50");
      createBk().apply(m);
      m.begin(2).change(new SchemaChange.AddColumn(BK_NAME, new Column("w", ColumnSpec.of(3, "text")), null, null))
          .commit("0/200");
      h.feed(m.entries());
      assertEquals(List.of(List.of(COPYING)), h.query(TABLES_SQL), "a shown column alone does not complete the copy");
      assertFalse(h.query(TABLES_SQL).contains(List.of("bk")));

      int done = m.entries().size();
      m.begin(3).change(new SchemaChange.UpdateTableMetadata(BK_NAME, new TableMetadata(2200, 2, Map.of("id", 1)),
          new TableMetadata(2200, 2, Map.of("w", 3)))).change(new SchemaChange.DropColumn(BK_NAME, "v"))
          .change(new SchemaChange.DropColumn(BK_NAME, "id")).commit("0/300");
      h.feed(m.entries().subList(done, m.entries().size()));
      assertEquals(List.of(List.of("bk")), h.query(TABLES_SQL), "nothing left to copy: the table is published");
      assertTrue(h.query("SELECT name FROM pragma_table_info('bk')").contains(List.of("w")));
    }
  }

  private static TableSpec spec() {
    Map<String, ColumnSpec> cols = new LinkedHashMap<>();
    cols.put("id", ColumnSpec.of(1, "int4"));
    cols.put("v", ColumnSpec.of(2, "text"));
    return new TableSpec("public", "bk", cols, List.of("id"));
  }

  /** bk published with rows: every column is copied. */
  private static UnaryOperator<ChangeMessages> createBk() {
    return m -> m.begin(1).change(new SchemaChange.CreateTable(spec(), new TableMetadata(2200, 2, Map.of("id", 1)),
        Map.of("id", new BackfillId(1), "v", new BackfillId(2)))).commit("0/100");
  }

  private static UnaryOperator<ChangeMessages> copy(String snapshotLsn, List<List<Value>> rows) {
    return m -> m.beginBackfill().change(new DataChange.Backfill(BK, List.of("v"), Watermark.fromLsn(snapshotLsn),
        rows, null)).commitBackfill();
  }

  private static SchemaChange.BackfillCompleted completed(String snapshotLsn) {
    return new SchemaChange.BackfillCompleted(BK, List.of("v"), Watermark.fromLsn(snapshotLsn),
        new BackfillStatus(2, 2, null));
  }

  private static IndexSpec index(String name) {
    return new IndexSpec("public", "bk", name, false, Map.of("v", SortDirection.ASC));
  }

  private static long count(ReplicaHarness h, String quotedTable) throws Exception {
    return ((Number) h.query("SELECT count(*) FROM " + quotedTable).get(0).get(0)).longValue();
  }
}
