package io.pg2lite.source.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pg2lite.protocol.message.ChangeLogEntry;
import io.pg2lite.protocol.message.Commit;
import io.pg2lite.protocol.message.DataChange;
import io.pg2lite.protocol.message.MessageKind;
import io.pg2lite.protocol.message.SchemaChange;
import io.pg2lite.protocol.schema.QualifiedName;
import io.pg2lite.protocol.schema.SortDirection;
import io.pg2lite.testkit.TestStack;
import io.pg2lite.testkit.TestStackExtension;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The DDL matrix: each schema change on a published table becomes the right schema-change
 * messages, inside the DDL's transaction, in the reference's order.
 */
@ExtendWith(TestStackExtension.class)
class SchemaChangesIT {
  private static final Duration WAIT = Duration.ofSeconds(60);

  /** Runs {@code sql} as one transaction and returns the changes of the transaction it produced. */
  private static List<Object> changesOf(SourceFixture f, String... sql) throws Exception {
    int before = f.entries().size();
    StringBuilder tx = new StringBuilder("BEGIN;");
    for (String s : sql) {
      tx.append(s).append(';');
    }
    tx.append("COMMIT");
    f.db.execute(tx.toString());
    List<ChangeLogEntry> all = f.awaitEntries(1, WAIT);
    // Read until this transaction's commit.
    while (all.stream().skip(before).noneMatch(e -> e.kind() == MessageKind.COMMIT)) {
      all = f.awaitEntries(1, WAIT);
    }
    List<Object> out = new ArrayList<>();
    for (ChangeLogEntry e : all.subList(before, all.size())) {
      if (e.kind() == MessageKind.DATA) {
        out.add(e.message());
      }
      if (e.message() instanceof Commit) {
        break;
      }
    }
    return out;
  }

  @Test
  void theDdlMatrix(TestStack stack) throws Exception {
    try (SourceFixture f = new SourceFixture(stack, "ddl_matrix")) {
      f.db.execute("CREATE TABLE a (id int PRIMARY KEY, name text, legacy int)",
          "CREATE PUBLICATION ddl_matrix_pub FOR ALL TABLES");
      f.start();
      f.awaitEntries(3, WAIT);

      // CREATE TABLE: created empty, so no backfill; its index follows it.
      List<Object> c = changesOf(f, "CREATE TABLE b (k text PRIMARY KEY, v int)", "CREATE INDEX b_v ON b (v DESC)");
      SchemaChange.CreateTable ct = (SchemaChange.CreateTable) c.get(0);
      assertEquals("b", ct.spec().name());
      assertNull(ct.backfill(), "a table created by CREATE TABLE is empty: nothing to backfill");
      assertNotNull(ct.metadata());
      SchemaChange.CreateIndex ci = (SchemaChange.CreateIndex) c.get(1);
      assertEquals("b_v", ci.spec().name());
      assertEquals(SortDirection.DESC, ci.spec().columns().get("v"));

      // ADD COLUMN with a constant default: expressible on the replica.
      c = changesOf(f, "ALTER TABLE a ADD COLUMN n int DEFAULT 7");
      SchemaChange.AddColumn add = (SchemaChange.AddColumn) c.get(0);
      assertEquals("n", add.column().name());
      assertEquals("7", add.column().spec().dflt());
      assertNull(add.backfill());

      // ADD COLUMN with a volatile default: every row has its own value, so it is backfilled.
      c = changesOf(f, "ALTER TABLE a ADD COLUMN created timestamptz DEFAULT now()");
      add = (SchemaChange.AddColumn) c.get(0);
      assertNotNull(add.backfill());
      assertNull(add.column().spec().dflt(), "the backfill supplies the values, not the default");

      // Rename and retype a column, drop another: drops, then updates, in one DDL each.
      c = changesOf(f, "ALTER TABLE a RENAME COLUMN name TO title");
      SchemaChange.UpdateColumn rename = (SchemaChange.UpdateColumn) c.get(0);
      assertEquals("name", rename.old().name());
      assertEquals("title", rename.updated().name());
      // A retype rewrote every value (USING): the column is dropped and added again, backfilled (ADR 0008).
      c = changesOf(f, "ALTER TABLE a ALTER COLUMN legacy TYPE bigint");
      assertEquals(new SchemaChange.DropColumn(new QualifiedName("public", "a"), "legacy"), c.get(0));
      SchemaChange.AddColumn retype = (SchemaChange.AddColumn) c.get(1);
      assertEquals("int8", retype.column().spec().dataType());
      assertNotNull(retype.backfill(), "the copy brings the values Postgres rewrote");
      c = changesOf(f, "ALTER TABLE a DROP COLUMN legacy");
      assertEquals(new SchemaChange.DropColumn(new QualifiedName("public", "a"), "legacy"), c.get(0));

      // Rename and move a table.
      c = changesOf(f, "ALTER TABLE b RENAME TO bee");
      assertEquals(new SchemaChange.RenameTable(new QualifiedName("public", "b"), new QualifiedName("public", "bee")),
          c.get(0));

      // DROP INDEX, then DROP TABLE: the index goes first.
      c = changesOf(f, "DROP INDEX b_v");
      assertEquals(new SchemaChange.DropIndex(new QualifiedName("public", "b_v")), c.get(0));
      c = changesOf(f, "CREATE INDEX a_title ON a (title)", "DROP TABLE bee");
      assertTrue(c.get(0) instanceof SchemaChange.CreateIndex, c.toString());
      assertEquals(new SchemaChange.DropTable(new QualifiedName("public", "bee")), c.get(1));

      // Data and schema changes of one transaction stay in WAL order.
      c = changesOf(f, "INSERT INTO a (id, title) VALUES (1, 'x')", "ALTER TABLE a ADD COLUMN z text",
          "INSERT INTO a (id, title, z) VALUES (2, 'y', 'zz')");
      assertTrue(c.get(0) instanceof DataChange.Insert, c.toString());
      assertTrue(c.get(1) instanceof SchemaChange.AddColumn, c.toString());
      DataChange.Insert second = (DataChange.Insert) c.get(2);
      assertTrue(second.row().contains("z"), "the row after ADD COLUMN has the column: " + second.row());
    }
  }

  @Test
  void aTableAddedToThePublicationIsBackfilledWhole(TestStack stack) throws Exception {
    try (SourceFixture f = new SourceFixture(stack, "ddl_pub")) {
      f.db.execute("CREATE TABLE a (id int PRIMARY KEY)", "CREATE TABLE later (id int PRIMARY KEY, v text)",
          "INSERT INTO later VALUES (1, 'existing')", "CREATE PUBLICATION ddl_pub_pub FOR TABLE a");
      f.start();
      f.awaitEntries(3, WAIT);
      List<Object> c = changesOf(f, "ALTER PUBLICATION ddl_pub_pub ADD TABLE later");
      SchemaChange.CreateTable ct = (SchemaChange.CreateTable) c.get(0);
      assertEquals("later", ct.spec().name());
      assertEquals(List.of("id", "v"), List.copyOf(ct.backfill().keySet()), "its existing rows must be copied");

      c = changesOf(f, "ALTER PUBLICATION ddl_pub_pub DROP TABLE later");
      assertEquals(new SchemaChange.DropTable(new QualifiedName("public", "later")), c.get(0));
    }
  }

  @Test
  void aPrimaryKeyChangeUpdatesTheTableMetadata(TestStack stack) throws Exception {
    try (SourceFixture f = new SourceFixture(stack, "ddl_pk")) {
      f.db.execute("CREATE TABLE a (id int PRIMARY KEY, alt int NOT NULL)", "CREATE PUBLICATION ddl_pk_pub FOR TABLE a");
      f.start();
      f.awaitEntries(3, WAIT);
      List<Object> c = changesOf(f, "ALTER TABLE a DROP CONSTRAINT a_pkey", "ALTER TABLE a ADD PRIMARY KEY (alt)");
      List<SchemaChange.UpdateTableMetadata> updates = c.stream()
          .filter(SchemaChange.UpdateTableMetadata.class::isInstance).map(SchemaChange.UpdateTableMetadata.class::cast)
          .toList();
      assertEquals(List.of("alt"), List.copyOf(updates.get(updates.size() - 1).updated().rowKey().keySet()), c.toString());
    }
  }
}
