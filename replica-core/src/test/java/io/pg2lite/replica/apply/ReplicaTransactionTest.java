package io.pg2lite.replica.apply;

import static io.pg2lite.replica.apply.Tables.ITEM;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pg2lite.protocol.message.DataChange;
import io.pg2lite.protocol.message.SchemaChange;
import io.pg2lite.protocol.schema.Relation;
import io.pg2lite.protocol.schema.RowKey;
import io.pg2lite.protocol.value.Row;
import io.pg2lite.protocol.value.Value;
import io.pg2lite.protocol.watermark.Watermark;
import io.pg2lite.replica.ReplicaException;
import io.pg2lite.replica.ReplicaTransaction;
import io.pg2lite.replica.file.ReplicaState;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The replica's two levels of transaction, driven directly: upstream transactions sharing one
 * SQLite transaction, each kept whole, and their position written with them.
 */
class ReplicaTransactionTest {
  @TempDir
  Path dir;

  private static DataChange.Insert insert(long id) {
    return new DataChange.Insert(ITEM, Row.of("id", Value.of(id)));
  }

  private static ReplicaState at(String lsn, long offset) {
    return new ReplicaState(ReplicaHarness.VERSION, Watermark.fromLsn(lsn).toString(), "log", 0, offset, offset);
  }

  /** The upstream transaction creating {@code item}, committed at offset 2 (not yet to SQLite). */
  private static void createItem(ReplicaHarness h) throws Exception {
    ReplicaTransaction create = h.replica.begin(Watermark.fromLsn("0/100"));
    create.apply(Tables.createItem());
    create.commit(at("0/200", 2));
  }

  @Test
  void upstreamTransactionsShareTheSqliteCommitAndARollbackDiscardsOnlyItsOwn() throws Exception {
    try (ReplicaHarness h = new ReplicaHarness(dir)) {
      createItem(h);
      ReplicaTransaction first = h.replica.begin(Watermark.fromLsn("0/200"));
      first.apply(insert(1));
      first.commit(at("0/300", 5));
      ReplicaTransaction second = h.replica.begin(Watermark.fromLsn("0/300"));
      second.apply(insert(2));
      second.rollback();
      assertEquals(List.of(), h.query("SELECT * FROM " + io.pg2lite.replica.lite.SqlNames.quote(
          io.pg2lite.replica.file.MetadataTables.STATE)), "nothing is visible before the SQLite commit");
      h.replica.commit();
      assertEquals(List.of(List.of(1)), h.query("SELECT id FROM item"));
      assertEquals(at("0/300", 5), h.replica.state(), "the position of the last upstream commit, with its data");
    }
  }

  @Test
  void theSqliteTransactionIsNeverCommittedInsideAnUpstreamOneNorOneBegunInsideAnother() throws Exception {
    try (ReplicaHarness h = new ReplicaHarness(dir)) {
      ReplicaTransaction tx = h.replica.begin(Watermark.fromLsn("0/100"));
      tx.apply(Tables.createItem());
      assertThrows(IllegalStateException.class, h.replica::commit, "it would split the upstream transaction");
      assertThrows(IllegalStateException.class, () -> h.replica.begin(Watermark.fromLsn("0/200")));
      tx.commit(at("0/200", 2));
      IllegalStateException ended = assertThrows(IllegalStateException.class, () -> tx.apply(insert(1)));
      assertTrue(ended.getMessage().contains("has ended"), ended.getMessage());
      h.replica.commit();
      assertEquals(at("0/200", 2), h.replica.state());
    }
  }

  @Test
  void aReplicaRollbackDiscardsTheOpenUpstreamTransactionAndTheCommittedOnesSinceTheLastCommit() throws Exception {
    try (ReplicaHarness h = new ReplicaHarness(dir)) {
      createItem(h);
      h.replica.commit();
      ReplicaTransaction first = h.replica.begin(Watermark.fromLsn("0/200"));
      first.apply(insert(1));
      first.commit(at("0/300", 5));
      ReplicaTransaction open = h.replica.begin(Watermark.fromLsn("0/300"));
      open.apply(insert(2));
      h.replica.rollback();
      assertThrows(IllegalStateException.class, () -> open.apply(insert(3)), "the rollback ended it");
      assertEquals(List.of(), h.query("SELECT id FROM item"));
      assertEquals(at("0/200", 2), h.replica.state());
    }
  }

  /**
   * SQLite rolls the transaction back by itself on SQLITE_FULL, then refuses ROLLBACK ("no
   * transaction is active"): the replica's rollback resets its schema all the same, so the next
   * attempt meets the tables SQLite has, not those of the failed transaction.
   */
  @Test
  void aRollbackAfterSqliteFullResetsTheSchemaThoughSqliteRefusesTheRollback() throws Exception {
    Relation goods = new Relation("public", "goods", RowKey.of("id"));
    try (ReplicaHarness h = new ReplicaHarness(dir)) {
      createItem(h);
      h.replica.commit();
      long pages = ((Number) h.query("PRAGMA page_count").get(0).get(0)).longValue();
      h.replica.limitSize((pages + 6) * 4096);
      ReplicaTransaction renaming = h.replica.begin(Watermark.fromLsn("0/200"));
      ReplicaException full = assertThrows(ReplicaException.class, () -> {
        renaming.apply(new SchemaChange.RenameTable(ITEM.table(), goods.table()));
        for (int k = 1; k <= 50; k++) {
          renaming.apply(new DataChange.Insert(goods, Row.of("id", Value.of(k), "name", Value.of("n".repeat(2000)))));
        }
        renaming.commit(at("0/300", 5));
      });
      assertTrue(full.getMessage().contains("SQLITE_FULL"), full.getMessage());
      ReplicaException refused = assertThrows(ReplicaException.class, h.replica::rollback);
      assertTrue(refused.getMessage().contains("no transaction is active"), refused.getMessage());
      ReplicaTransaction again = h.replica.begin(Watermark.fromLsn("0/200"));
      again.apply(new SchemaChange.RenameTable(ITEM.table(), goods.table())); // item, as SQLite still has it
      again.rollback();
      h.replica.rollback();
      assertEquals(List.of(List.of(0)), h.query("SELECT count(*) FROM item"));
    }
  }
}
