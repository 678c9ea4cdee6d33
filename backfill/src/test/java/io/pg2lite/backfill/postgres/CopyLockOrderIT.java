package io.pg2lite.backfill.postgres;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import io.pg2lite.backfill.copy.TableCopy;
import io.pg2lite.backfill.state.BackfillRequest;
import io.pg2lite.protocol.schema.BackfillId;
import io.pg2lite.protocol.value.Value;
import io.pg2lite.protocol.watermark.Watermark;
import io.pg2lite.testkit.TestStack;
import io.pg2lite.testkit.TestStackExtension;
import io.pg2lite.testkit.postgres.TestDatabase;
import io.pg2lite.testkit.support.Await;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * A copy never takes part in a lock cycle with the application's DDL. ValuesIT deadlocked once:
 * the copy of b held ACCESS SHARE on b and waited on a (pg_publication_tables opens every table
 * of the publication), while {@code TRUNCATE a, b} held a and waited on b. Here the application
 * holds a first; the copy must wait without holding b, so the application then gets b at once.
 */
@ExtendWith(TestStackExtension.class)
class CopyLockOrderIT {
  @Test
  void aCopyWaitingOnAnotherPublishedTableHoldsNoLockOnItsOwn(TestStack stack) throws Exception {
    TestDatabase db = stack.postgres().newDatabase("copy_locks");
    db.execute("CREATE TABLE a (id int PRIMARY KEY)", "CREATE TABLE b (id int PRIMARY KEY, v text)",
        "INSERT INTO b SELECT g, 'v' || g FROM generate_series(1, 5) g",
        "CREATE PUBLICATION copy_locks_pub FOR TABLE a, b");
    BackfillRequest copyB = CopyRequests.of(db, "b", Map.of("id", 1), Map.of("v", new BackfillId(2)));
    try (Connection app = db.connect(); Connection copy = db.connect(); Connection catalog = db.connect()) {
      app.setAutoCommit(false);
      try (Statement s = app.createStatement()) {
        s.execute("LOCK TABLE a IN ACCESS EXCLUSIVE MODE"); // what TRUNCATE a, b takes first
      }
      int copyPid = pid(catalog); // the row filters are read outside the snapshot's transaction
      copy.setAutoCommit(false);
      try (Statement s = copy.createStatement()) {
        s.execute("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ, READ ONLY");
      }
      AtomicReference<Throwable> failure = new AtomicReference<>();
      AtomicReference<List<List<Value>>> rows = new AtomicReference<>();
      Thread copier = new Thread(() -> {
        try {
          SharedSnapshot shared = new SharedSnapshot(copy, Watermark.fromLsn("0/1"),
              SharedSnapshot.rowFilters(catalog, "copy_locks_pub"), System::currentTimeMillis);
          shared.copyOpened();
          TableCopy t = PostgresTableCopy.open(shared, copyB, shared.rowFilter(copyB.table()), 100);
          rows.set(t.next(100, Long.MAX_VALUE));
          t.close();
        } catch (Throwable e) {
          failure.set(e);
        }
      }, "copier");
      copier.start();
      Await.until("the copy waiting on a lock", Duration.ofSeconds(30), () -> waitsOnALock(db, copyPid));
      try (Statement s = app.createStatement()) {
        // Longer than deadlock_timeout (1 s): a cycle would be found and broken with an error.
        s.execute("SET LOCAL lock_timeout = '5s'");
        s.execute("LOCK TABLE b IN ACCESS EXCLUSIVE MODE"); // what TRUNCATE a, b takes next
      }
      app.commit();
      copier.join(30_000);
      assertNull(failure.get(), "the copy failed: " + failure.get());
      assertEquals(5, rows.get().size(), "the copy read b once the application was done");
    }
  }

  private static int pid(Connection c) throws Exception {
    try (Statement s = c.createStatement(); ResultSet rs = s.executeQuery("SELECT pg_backend_pid()")) {
      rs.next();
      return rs.getInt(1);
    }
  }

  private static boolean waitsOnALock(TestDatabase db, int pid) {
    try (Connection c = db.connect(); Statement s = c.createStatement();
        ResultSet rs = s.executeQuery("SELECT count(*) FROM pg_locks WHERE pid = " + pid + " AND NOT granted")) {
      rs.next();
      return rs.getLong(1) > 0;
    } catch (Exception e) {
      return false;
    }
  }
}
