package io.pg2lite.source.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pg2lite.protocol.message.ChangeLogEntry;
import io.pg2lite.protocol.message.DataChange;
import io.pg2lite.protocol.message.MessageKind;
import io.pg2lite.protocol.schema.QualifiedName;
import io.pg2lite.protocol.value.Row;
import io.pg2lite.protocol.value.Value;
import io.pg2lite.testkit.TestStack;
import io.pg2lite.testkit.TestStackExtension;
import java.time.Duration;
import java.util.List;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/** Every supported Postgres type arrives exactly as docs/type-mapping.md says; TOAST and TRUNCATE behave. */
@ExtendWith(TestStackExtension.class)
class ValuesIT {
  private static final Duration WAIT = Duration.ofSeconds(60);

  private static List<DataChange> dataChanges(List<ChangeLogEntry> log) {
    return log.stream().filter(e -> e.kind() == MessageKind.DATA && e.message() instanceof DataChange)
        .map(e -> (DataChange) e.message()).collect(Collectors.toList());
  }

  @Test
  void everyTypeMapsExactly(TestStack stack) throws Exception {
    try (SourceFixture f = new SourceFixture(stack, "values_types")) {
      f.db.execute("CREATE TYPE mood AS ENUM ('sad', 'happy')",
          "CREATE DOMAIN positive AS int4 CHECK (VALUE > 0)",
          "CREATE TABLE t (id int PRIMARY KEY, i2 int2, i4 int4, i8 int8, num numeric, num_nan numeric,"
              + " num_inf numeric, f4 float4, f8 float8, f8_nan float8, f8_inf float8, b bool, tx text,"
              + " vc varchar(10), ch char(3), u uuid, js json, jb jsonb, by bytea, d date, tm time, tz timetz,"
              + " ts timestamp, tstz timestamptz, iv interval, e mood, arr int8[], tarr text[], dom positive)",
          "CREATE PUBLICATION values_types_pub FOR TABLE t");
      f.start();
      f.awaitEntries(3, WAIT);
      f.db.execute("SET TIME ZONE 'UTC'; INSERT INTO t VALUES (1, -32768, 2147483647, 9223372036854775807,"
          + " 12345678901234567890.123456789, 'NaN', 'Infinity', 1.5, 0.1, 'NaN', '-Infinity', true, 'héllo \"w\"',"
          + " 'abc', 'ab', 'a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11', '{\"a\": [1, 2]}', '{\"b\": 2, \"a\": 1}',"
          + " '\\x00ff10', '2025-01-02', '03:04:05.123456', '03:04:05.5+02', '2025-01-02 03:04:05.123456',"
          + " '2025-01-02 03:04:05.123456+00', '1 year 2 mons 3 days 04:05:06.5', 'happy', '{1,9007199254740993}',"
          + " '{\"x\",NULL}', 5)");
      f.db.execute("INSERT INTO t (id) VALUES (2)");
      List<DataChange> changes = dataChanges(f.awaitEntries(6, WAIT));
      Row row = ((DataChange.Insert) changes.get(0)).row();
      assertEquals(Value.of(-32768), row.get("i2"));
      assertEquals(Value.of(2147483647), row.get("i4"));
      assertEquals(Value.of(Long.MAX_VALUE), row.get("i8"));
      assertEquals(Value.of("12345678901234567890.123456789"), row.get("num"), "numeric is exact text");
      assertEquals(Value.of("NaN"), row.get("num_nan"));
      assertEquals(Value.of("Infinity"), row.get("num_inf"));
      assertEquals(new Value.Float(1.5), row.get("f4"));
      assertEquals(new Value.Float(0.1), row.get("f8"));
      assertEquals(Value.of("NaN"), row.get("f8_nan"));
      assertEquals(Value.of("-Infinity"), row.get("f8_inf"));
      assertEquals(Value.of(true), row.get("b"));
      assertEquals(Value.of("héllo \"w\""), row.get("tx"));
      assertEquals(Value.of("abc"), row.get("vc"));
      assertEquals(Value.of("ab "), row.get("ch"), "char(n) keeps its padding");
      assertEquals(Value.of("a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11"), row.get("u"));
      assertEquals(Value.of("{\"a\": [1, 2]}"), row.get("js"), "json keeps its text");
      assertEquals(Value.of("{\"a\": 1, \"b\": 2}"), row.get("jb"), "jsonb as Postgres prints it");
      assertEquals(Value.of("\\x00ff10"), row.get("by"), "bytea in Postgres hex format");
      assertEquals(Value.of("2025-01-02"), row.get("d"));
      assertEquals(Value.of("03:04:05.123456"), row.get("tm"));
      assertEquals(Value.of("2025-01-02T03:04:05.123456"), row.get("ts"));
      assertEquals(Value.of("2025-01-02T03:04:05.123456Z"), row.get("tstz"));
      assertEquals(Value.of("01:04:05.5Z"), row.get("tz"), "timetz normalised to UTC");
      assertEquals(Value.of("P1Y2M3DT4H5M6.5S"), row.get("iv"), "interval in ISO 8601");
      assertEquals(Value.of("happy"), row.get("e"));
      assertEquals(new Value.Array(List.of(Value.of(1), Value.of(9_007_199_254_740_993L))), row.get("arr"));
      assertEquals(new Value.Array(List.of(Value.of("x"), Value.NULL)), row.get("tarr"));
      assertEquals(Value.of(5), row.get("dom"), "a domain travels as its base type");

      Row nulls = ((DataChange.Insert) changes.get(1)).row();
      assertEquals(29, nulls.size(), "every column present");
      assertEquals(Value.NULL, nulls.get("tstz"));
      assertEquals(Value.NULL, nulls.get("arr"));
    }
  }

  @Test
  void unchangedToastedColumnsAreLeftOutOfUpdates(TestStack stack) throws Exception {
    try (SourceFixture f = new SourceFixture(stack, "values_toast")) {
      f.db.execute("CREATE TABLE doc (id int PRIMARY KEY, title text, body text, tags text[])",
          "ALTER TABLE doc ALTER COLUMN body SET STORAGE EXTERNAL",
          "ALTER TABLE doc ALTER COLUMN tags SET STORAGE EXTERNAL",
          "CREATE PUBLICATION values_toast_pub FOR TABLE doc");
      f.start();
      f.awaitEntries(3, WAIT);
      String big = "x".repeat(10_000);
      f.db.execute("INSERT INTO doc SELECT 1, 't', '" + big + "', array_fill('y'::text, ARRAY[3000])");
      f.db.execute("UPDATE doc SET title = 'changed' WHERE id = 1");
      List<DataChange> changes = dataChanges(f.awaitEntries(6, WAIT));
      Row inserted = ((DataChange.Insert) changes.get(0)).row();
      assertEquals(Value.of(big), inserted.get("body"));
      Row updated = ((DataChange.Update) changes.get(1)).row();
      assertEquals(Value.of("changed"), updated.get("title"));
      assertFalse(updated.contains("body"), "unchanged TOAST value is absent, not a placeholder: " + updated.values().keySet());
      assertFalse(updated.contains("tags"), "unchanged TOASTed array is absent too");
    }
  }

  @Test
  void multiTableTruncateAndReplicaIdentityFull(TestStack stack) throws Exception {
    try (SourceFixture f = new SourceFixture(stack, "values_trunc")) {
      f.db.execute("CREATE TABLE a (id int PRIMARY KEY)", "CREATE TABLE b (id int PRIMARY KEY, v text)",
          "ALTER TABLE b REPLICA IDENTITY FULL", "CREATE PUBLICATION values_trunc_pub FOR TABLE a, b");
      f.start();
      f.awaitEntries(4, WAIT);
      f.db.execute("INSERT INTO b VALUES (1, 'one')");
      f.db.execute("UPDATE b SET v = 'uno'");
      f.db.execute("TRUNCATE a, b");
      List<DataChange> changes = dataChanges(f.awaitEntries(3 + 3 + 4, WAIT));
      DataChange.Update u = (DataChange.Update) changes.get(1);
      assertEquals(Row.of("id", Value.of(1), "v", Value.of("one")), u.key(), "FULL identity: the whole old row");
      List<QualifiedName> truncated = changes.subList(2, 4).stream()
          .flatMap(c -> ((DataChange.Truncate) c).relations().stream()).map(r -> r.table()).toList();
      assertEquals(List.of(new QualifiedName("public", "a"), new QualifiedName("public", "b")), truncated);
    }
  }

  @Test
  void aPrimaryKeyUpdateIsOneUpdateCarryingTheOldKey(TestStack stack) throws Exception {
    try (SourceFixture f = new SourceFixture(stack, "values_keychange")) {
      f.db.execute("CREATE TABLE k (id int PRIMARY KEY, v text)", "CREATE PUBLICATION values_keychange_pub FOR TABLE k");
      f.start();
      f.awaitEntries(3, WAIT);
      f.db.execute("INSERT INTO k VALUES (1, 'a')");
      f.db.execute("UPDATE k SET id = 2 WHERE id = 1");
      List<DataChange> changes = dataChanges(f.awaitEntries(6, WAIT));
      DataChange.Update u = (DataChange.Update) changes.get(1);
      assertEquals(Row.of("id", Value.of(1)), u.key());
      assertEquals(Row.of("id", Value.of(2), "v", Value.of("a")), u.row());
    }
  }
}
