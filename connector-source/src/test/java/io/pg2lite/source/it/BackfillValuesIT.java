package io.pg2lite.source.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pg2lite.protocol.message.Begin;
import io.pg2lite.protocol.message.ChangeLogEntry;
import io.pg2lite.protocol.message.Commit;
import io.pg2lite.protocol.message.DataChange;
import io.pg2lite.protocol.message.SchemaChange;
import io.pg2lite.protocol.value.Row;
import io.pg2lite.protocol.value.Value;
import io.pg2lite.protocol.watermark.Watermark;
import io.pg2lite.testkit.TestStack;
import io.pg2lite.testkit.TestStackExtension;
import io.pg2lite.testkit.support.Await;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The backfill's side of the log: a copied row carries exactly the values the main stream carries
 * for the same data (every type of docs/type-mapping.md), and backfill transactions have the
 * watermarks and the completion rule of docs/protocol.md.
 */
@ExtendWith(TestStackExtension.class)
class BackfillValuesIT {
  private static final Duration WAIT = Duration.ofSeconds(90);
  private static final String COLUMNS = "i2 int2, i4 int4, i8 int8, num numeric, num_nan numeric,"
      + " num_inf numeric, f4 float4, f8 float8, f8_nan float8, f8_inf float8, b bool, tx text,"
      + " vc varchar(10), ch char(3), u uuid, js json, jb jsonb, by bytea, d date, tm time, tz timetz,"
      + " ts timestamp, tstz timestamptz, iv interval, e mood, arr int8[], tarr text[], dom positive,"
      + " tsarr timestamptz[], numarr numeric[], farr float8[], iv_neg interval, iv_zero interval,"
      + " iv_tiny interval, d_far date, ts_far timestamp, tstz_far timestamptz, d_bc date, ts_bc timestamp,"
      + " tstz_bc timestamptz";
  private static final String VALUES = "-32768, 2147483647, 9223372036854775807,"
      + " 12345678901234567890.123456789, 'NaN', 'Infinity', 1.5, 0.1, 'NaN', '-Infinity', true, 'héllo \"w\"',"
      + " 'abc', 'ab', 'a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11', '{\"a\": [1, 2]}', '{\"b\": 2, \"a\": 1}',"
      + " '\\x00ff10', '2025-01-02', '03:04:05.123456', '03:04:05.5+02', '2025-01-02 03:04:05.123456',"
      + " '2025-01-02 03:04:05.123456+03', '1 year 2 mons 3 days 04:05:06.5', 'happy', '{1,9007199254740993}',"
      + " '{\"x\",NULL}', 5, '{\"2025-01-02 03:04:05.5+00\"}', '{1.10,2.5}', '{0.1,NaN}',"
      + " '-1 year -2 mons +3 days -04:05:06.5', '0', '0.000001 seconds', '12345-06-07',"
      + " '10000-01-01 23:59:59.999999', '123456-07-08 01:02:03+00', '0044-03-15 BC', '0002-06-30 23:00:00 BC',"
      + " '0001-01-01 00:00:00+14'";

  @Test
  void copiedRowsEqualStreamedRowsForEveryType(TestStack stack) throws Exception {
    try (SourceFixture f = new SourceFixture(stack, "bf_values")) {
      f.db.execute("CREATE TYPE mood AS ENUM ('sad', 'happy')",
          "CREATE DOMAIN positive AS int4 CHECK (VALUE > 0)",
          "CREATE TABLE t (id int PRIMARY KEY, " + COLUMNS + ")",
          "INSERT INTO t VALUES (1, " + VALUES + ")", "INSERT INTO t (id) VALUES (2)",
          "CREATE PUBLICATION bf_values_pub FOR TABLE t");
      f.start();
      f.awaitEntries(3, WAIT);
      f.db.execute("INSERT INTO t VALUES (101, " + VALUES + ")", "INSERT INTO t (id) VALUES (102)");
      f.awaitEntries(6, WAIT);
      Await.until("backfill-completed", WAIT, () -> {
        return f.readAll(Duration.ofMillis(300)).stream().anyMatch(e -> e.message() instanceof SchemaChange.BackfillCompleted);
      });
      List<ChangeLogEntry> all = f.allEntries();
      DataChange.Backfill copy = all.stream().filter(e -> e.message() instanceof DataChange.Backfill)
          .map(e -> (DataChange.Backfill) e.message()).findFirst().orElseThrow();
      List<String> names = new java.util.ArrayList<>(copy.relation().rowKey().columns());
      names.addAll(copy.columns());
      assertEquals(List.of("id"), copy.relation().rowKey().columns());
      java.util.Map<Value, List<Value>> copied = new java.util.HashMap<>();
      copy.rowValues().forEach(r -> copied.put(r.get(0), r));
      java.util.Map<Value, Row> streamed = new java.util.HashMap<>();
      all.stream().filter(e -> e.message() instanceof DataChange.Insert)
          .map(e -> ((DataChange.Insert) e.message()).row()).forEach(r -> streamed.put(r.get("id"), r));
      // Rows 1 and 2 were copied; 101 and 102 (the same data) were streamed.
      for (int id = 1; id <= 2; id++) {
        List<Value> c = copied.get(Value.of(id));
        Row live = streamed.get(Value.of(100 + id));
        for (int i = 1; i < names.size(); i++) {
          assertEquals(live.get(names.get(i)), c.get(i), "column " + names.get(i) + " of row " + id);
        }
        if (id == 1) {
          // ISO 8601 astronomical years (docs/type-mapping.md): 44 BC is -0043, 1 BC is 0000.
          assertEquals(Value.of("-0043-03-15"), live.get("d_bc"));
          assertEquals(Value.of("-0001-06-30T23:00:00"), live.get("ts_bc"));
          assertEquals(Value.of("0000-12-31T10:00:00Z"), live.get("tstz_bc"));
          assertEquals(Value.of("PT0S"), live.get("iv_zero"));
          assertEquals(Value.of("10000-01-01T23:59:59.999999"), live.get("ts_far"));
        }
      }
    }
  }

  @Test
  void backfillTransactionsFollowTheWatermarkRules(TestStack stack) throws Exception {
    try (SourceFixture f = new SourceFixture(stack, "bf_marks")) {
      f.db.execute("CREATE TABLE t (id int PRIMARY KEY, v text)",
          "INSERT INTO t SELECT g, 'v' || g FROM generate_series(1, 5000) g",
          "CREATE PUBLICATION bf_marks_pub FOR TABLE t");
      f.start();
      f.awaitEntries(3, WAIT);
      Await.until("backfill-completed", WAIT, () -> {
        return f.readAll(Duration.ofMillis(300)).stream().anyMatch(e -> e.message() instanceof SchemaChange.BackfillCompleted);
      });
      List<ChangeLogEntry> all = f.allEntries();
      Watermark lastCommit = null;
      Watermark snapshot = null;
      long rows = 0;
      Watermark tx = null;
      boolean inBackfill = false;
      for (ChangeLogEntry e : all) {
        if (e.message() instanceof Begin b) {
          tx = e.watermark();
          inBackfill = b.backfill();
          if (b.backfill()) {
            assertTrue(tx.isAfter(lastCommit), "a backfill transaction sorts after the last commit " + lastCommit);
            assertTrue(!tx.equals(tx.majorOnly()), "a backfill transaction has an M.k watermark: " + tx);
          }
        } else if (e.message() instanceof Commit) {
          if (inBackfill) {
            assertEquals(tx, e.watermark(), "a backfill commit carries its begin's watermark");
          }
          lastCommit = e.watermark();
        } else if (e.message() instanceof DataChange.Backfill b) {
          assertEquals(tx, e.watermark());
          snapshot = b.watermark();
          rows += b.rowValues().size();
          assertEquals(rows, b.status().rows());
          assertEquals(5000, b.status().totalRows());
        } else if (e.message() instanceof SchemaChange.BackfillCompleted c) {
          assertEquals(snapshot, c.watermark());
          assertTrue(e.watermark().isAfter(c.watermark()), "completed in a transaction above the snapshot");
        }
      }
      assertEquals(5000, rows);
    }
  }
}
