package io.pg2lite.backfill.postgres;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pg2lite.backfill.copy.TableCopy;
import io.pg2lite.backfill.state.BackfillRequest;
import io.pg2lite.protocol.schema.BackfillId;
import io.pg2lite.testkit.TestStack;
import io.pg2lite.testkit.TestStackExtension;
import io.pg2lite.testkit.postgres.TestDatabase;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Copies on a real snapshot: small tables share one (same watermark, each reads its own rows), a
 * large table never joins a snapshot others read (it would hold their locks while it is read),
 * and a snapshot past its age is not shared.
 */
@ExtendWith(TestStackExtension.class)
class SharedSnapshotIT {
  @Test
  void smallTablesShareASnapshotALargeOneAndAnOldOneDoNot(TestStack stack) throws Exception {
    TestDatabase db = stack.postgres().newDatabase("shared_snapshot");
    db.execute("CREATE TABLE a (id int PRIMARY KEY, v text)", "CREATE TABLE b (id int PRIMARY KEY, v text)",
        "CREATE TABLE big (id int PRIMARY KEY, v text)",
        "INSERT INTO a SELECT g, 'a' || g FROM generate_series(1, 3) g",
        "INSERT INTO b SELECT g, 'b' || g FROM generate_series(1, 5) g",
        "INSERT INTO big SELECT g, repeat('x', 200) FROM generate_series(1, 60000) g", "VACUUM ANALYZE big",
        "CREATE PUBLICATION shared_snapshot_pub FOR TABLE a, b, big");
    AtomicLong now = new AtomicLong(1_000_000);
    PostgresTableCopySource source = new PostgresTableCopySource(new PostgresConnector(db.jdbcUrl(),
        db.server().user(), db.server().password(), "shared_snapshot_pub"), "shared_snapshot", 100, now::get);
    try {
      TableCopy a = source.open(request(db, "a"), false);
      assertEquals(3, a.next(100, Long.MAX_VALUE).size());
      a.close();
      TableCopy b = source.open(request(db, "b"), true);
      assertEquals(a.snapshot(), b.snapshot(), "a small table reads the snapshot the one before read");
      assertEquals(5, b.next(100, Long.MAX_VALUE).size(), "its own rows");
      b.close();
      TableCopy big = source.open(request(db, "big"), true);
      assertNotEquals(a.snapshot(), big.snapshot(), "a large table gets a snapshot of its own");
      assertTrue(big.snapshot().isAfter(a.snapshot()));
      big.close();
      now.addAndGet(SharedSnapshot.MAX_AGE_MS);
      TableCopy again = source.open(request(db, "a"), true);
      assertNotEquals(big.snapshot(), again.snapshot(), "a snapshot past its age is not shared");
      again.close();
    } finally {
      source.release();
    }
  }

  private static BackfillRequest request(TestDatabase db, String table) throws Exception {
    return CopyRequests.of(db, table, Map.of("id", 1), Map.of("v", new BackfillId(2)));
  }
}
