package io.pg2lite.backfill.postgres;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pg2lite.backfill.verify.TableDigests;
import io.pg2lite.backfill.verify.TableSnapshot;
import io.pg2lite.backfill.verify.VerifyTable;
import io.pg2lite.protocol.message.Verify;
import io.pg2lite.protocol.schema.ColumnSpec;
import io.pg2lite.protocol.schema.QualifiedName;
import io.pg2lite.protocol.schema.Relation;
import io.pg2lite.protocol.schema.RowKey;
import io.pg2lite.protocol.schema.TableMetadata;
import io.pg2lite.protocol.value.Value;
import io.pg2lite.protocol.watermark.Watermark;
import io.pg2lite.testkit.TestStack;
import io.pg2lite.testkit.TestStackExtension;
import io.pg2lite.testkit.postgres.TestDatabase;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * A verification's reading on a real snapshot. The oracle is a second table holding what the
 * first would hold without the rows a later change touched: the first's digests, with those keys
 * looked up in its (older) snapshot and taken out, must equal the second's, bucket by bucket.
 * That checks the lookups find the snapshot's versions of the rows (not the updated ones), by the
 * key's typed value, and that a key the snapshot lacks takes nothing out.
 */
@ExtendWith(TestStackExtension.class)
class PostgresVerifySourceIT {
  private static final String COLUMNS = "v text, n numeric, f float8, b bytea, a int4[], t timestamptz";

  @Test
  void rowsTouchedAfterTheSnapshotAreTakenOutByKey(TestStack stack) throws Exception {
    TestDatabase db = stack.postgres().newDatabase("verify_source");
    String rows = " SELECT g, 'v' || g, g / 7.0, g * 0.5, decode(md5(g::text), 'hex'), ARRAY[g, -g], "
        + "'2026-01-01'::timestamptz + g * interval '1 minute' FROM generate_series(1, 20000) g";
    db.execute("CREATE TABLE t (id int8 PRIMARY KEY, " + COLUMNS + ")", "INSERT INTO t" + rows,
        "CREATE TABLE expected (id int8 PRIMARY KEY, " + COLUMNS + ")",
        "INSERT INTO expected" + rows + " WHERE g NOT IN (500, 7000, 12345)",
        "CREATE PUBLICATION verify_pub FOR TABLE t, expected");
    PostgresVerifySource source = new PostgresVerifySource(new PostgresConnector(db.jdbcUrl(), db.server().user(),
        db.server().password(), "verify_pub"), "verify_source", 1000);
    AtomicLong paced = new AtomicLong();
    try (TableSnapshot snapshot = source.open(table(db, "t", List.of("id")))) {
      TableDigests digests = snapshot.scan(null, paced::addAndGet);
      assertEquals(20000, digests.rows());
      assertEquals(20000, paced.get(), "the pacing hears of every row read");
      assertInstanceOf(io.pg2lite.protocol.verify.Buckets.Ranges.class, digests.buckets(), "an int8 key: ranges");
      db.execute("UPDATE t SET v = 'changed' WHERE id IN (500, 7000)", "DELETE FROM t WHERE id = 12345",
          "INSERT INTO t VALUES (30000, 'new')");
      snapshot.exclude(digests, List.of(List.of(Value.of(500L)), List.of(new Value.Text("7000")),
          List.of(Value.of(12345L)), List.of(Value.of(30000L)), List.of(Value.of(500L))), null);
      assertEquals(3, digests.excluded(), "the three rows of the snapshot, once each; the new key is not in it");
      Verify mine = digests.message("r", snapshot.watermark(), Watermark.parse("01"), null);
      try (TableSnapshot other = source.open(table(db, "expected", List.of("id")))) {
        TableDigests oracle = other.scan(null, n -> {});
        assertNotEquals(snapshot.watermark(), other.watermark());
        // Both read min 1 and max 20000, so the buckets are the same ranges.
        assertEquals(oracle.buckets(), digests.buckets());
        assertEquals(oracle.message("r", other.watermark(), Watermark.parse("01"), null).digests(), mine.digests());
      }
    }
  }

  @Test
  void aCompositeTextKeyIsHashedAndLookedUpByItsTypedValues(TestStack stack) throws Exception {
    TestDatabase db = stack.postgres().newDatabase("verify_composite");
    String rows = " SELECT 'k' || (g % 100), DATE '2026-01-01' + g / 100, g FROM generate_series(1, 5000) g";
    db.execute("CREATE TABLE c (k text, d date, n int, PRIMARY KEY (k, d))", "INSERT INTO c" + rows,
        "CREATE TABLE c2 (k text, d date, n int, PRIMARY KEY (k, d))",
        "INSERT INTO c2" + rows + " WHERE NOT (g % 100 = 7 AND g / 100 = 3)",
        "CREATE PUBLICATION verify_c_pub FOR TABLE c, c2");
    PostgresVerifySource source = new PostgresVerifySource(new PostgresConnector(db.jdbcUrl(), db.server().user(),
        db.server().password(), "verify_c_pub"), "verify_c", 1000);
    try (TableSnapshot snapshot = source.open(table(db, "c", List.of("k", "d")))) {
      TableDigests digests = snapshot.scan(null, n -> {});
      assertInstanceOf(io.pg2lite.protocol.verify.Buckets.Hashed.class, digests.buckets());
      assertEquals(2, digests.buckets().count(), "5,000 rows: two buckets of about 4,096");
      db.execute("DELETE FROM c WHERE k = 'k7' AND d = DATE '2026-01-04'");
      snapshot.exclude(digests, List.of(List.of(new Value.Text("k7"), new Value.Text("2026-01-04"))), null);
      assertEquals(1, digests.excluded());
      try (TableSnapshot other = source.open(table(db, "c2", List.of("k", "d")))) {
        assertEquals(other.scan(null, n -> {}).message("r", other.watermark(), Watermark.parse("01"), null).digests(),
            digests.message("r", snapshot.watermark(), Watermark.parse("01"), null).digests());
      }
    }
  }

  @Test
  void aKeyRangeLimitsTheScanAndTheLookups(TestStack stack) throws Exception {
    TestDatabase db = stack.postgres().newDatabase("verify_range");
    db.execute("CREATE TABLE r (id int4 PRIMARY KEY, v text)",
        "INSERT INTO r SELECT g, 'v' || g FROM generate_series(1, 1000) g", "CREATE PUBLICATION verify_r_pub FOR TABLE r");
    PostgresVerifySource source = new PostgresVerifySource(new PostgresConnector(db.jdbcUrl(), db.server().user(),
        db.server().password(), "verify_r_pub"), "verify_r", 1000);
    try (TableSnapshot snapshot = source.open(table(db, "r", List.of("id")))) {
      Verify.KeyRange range = new Verify.KeyRange(100, 199);
      TableDigests digests = snapshot.scan(range, n -> {});
      assertEquals(100, digests.rows());
      assertEquals(new io.pg2lite.protocol.verify.Buckets.Ranges(100, 199, 1), digests.buckets());
      snapshot.exclude(digests, List.of(List.of(Value.of(150L)), List.of(Value.of(500L))), range);
      assertEquals(1, digests.excluded(), "a key outside the range is not taken out: it was never added");
      assertEquals(99, digests.rows());
    }
  }

  /** The table as the change log would describe it: every column, its type, the key. */
  private static VerifyTable table(TestDatabase db, String name, List<String> key) throws Exception {
    Map<String, ColumnSpec> columns = new LinkedHashMap<>();
    Map<String, Integer> keyPositions = new LinkedHashMap<>();
    long oid;
    long namespace;
    try (Connection c = db.connect()) {
      try (PreparedStatement ps = c.prepareStatement("SELECT c.oid, c.relnamespace FROM pg_class c WHERE c.oid = ?::regclass")) {
        ps.setString(1, "public." + name);
        try (ResultSet rs = ps.executeQuery()) {
          rs.next();
          oid = rs.getLong(1);
          namespace = rs.getLong(2);
        }
      }
      try (PreparedStatement ps = c.prepareStatement("SELECT a.attname, a.attnum, CASE WHEN t.typcategory = 'A' "
          + "THEN e.typname || '[]' ELSE t.typname END FROM pg_attribute a JOIN pg_type t ON t.oid = a.atttypid "
          + "LEFT JOIN pg_type e ON e.oid = t.typelem WHERE a.attrelid = ? AND a.attnum > 0 AND NOT a.attisdropped")) {
        ps.setLong(1, oid);
        try (ResultSet rs = ps.executeQuery()) {
          while (rs.next()) {
            columns.put(rs.getString(1), ColumnSpec.of(rs.getInt(2), rs.getString(3)));
            if (key.contains(rs.getString(1))) {
              keyPositions.put(rs.getString(1), rs.getInt(2));
            }
          }
        }
      }
    }
    Map<String, Integer> orderedKey = new LinkedHashMap<>();
    key.forEach(k -> orderedKey.put(k, keyPositions.get(k)));
    return new VerifyTable(new Relation("public", name, new RowKey(key, null)), new TableMetadata(namespace, oid,
        orderedKey), new TreeMap<>(columns));
  }
}
