package io.pg2lite.sink.it;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.pg2lite.testkit.TestStack;
import io.pg2lite.testkit.TestStackExtension;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Issue 10, defect 6, end to end: values the docs promise to keep exactly. -0 of float columns
 * (and float array elements) reads the same whether the row was copied by the initial backfill or
 * streamed live; an added array column's constant default reads, in rows that existed when the
 * column was added, exactly like the same array written later.
 */
@ExtendWith(TestStackExtension.class)
class ExactValuesIT {
  private static final String NEGATIVE_ZERO = "-0x0p+0";

  @Test
  void negativeZeroOnTheBackfillAndTheLivePath(TestStack stack) throws Exception {
    try (Pipeline p = new Pipeline(stack, "exact_zero")) {
      p.db.execute("CREATE TABLE z (id int PRIMARY KEY, d float8, r float4, ds float8[])",
          "INSERT INTO z VALUES (1, '-0', '-0', '{-0,1.5,NaN}'), (2, 0, 0, '{0}')",
          "CREATE PUBLICATION exact_zero_pub FOR TABLE z");
      p.startSource();
      Path replica = p.files.newFile("zero");
      p.startSink("a", replica);
      p.awaitBackfilled(replica, "z", Pipeline.WAIT);
      p.db.execute("INSERT INTO z VALUES (3, '-0', '-0', '{-0,1.5,NaN}'), (4, 0, 0, '{0}')");
      p.awaitEqual(replica, "SELECT count(*) FROM z", "SELECT count(*) FROM z");
      List<String> negative = List.of("text", NEGATIVE_ZERO, "text", NEGATIVE_ZERO, "[-0.0,1.5,\"NaN\"]");
      List<String> positive = List.of("real", "0.0", "real", "0.0", "[0.0]");
      List<List<String>> rows = Pipeline.replica(replica,
          "SELECT typeof(d), d, typeof(r), r, ds FROM z ORDER BY id");
      assertEquals(List.of(negative, positive, negative, positive), rows, "copied rows 1, 2; streamed rows 3, 4");
      assertEquals(List.of(List.of("-0", "-0"), List.of("0", "0"), List.of("-0", "-0"), List.of("0", "0")),
          p.postgres("SELECT d::text, r::text FROM z ORDER BY id"), "what Postgres holds");
    }
  }

  @Test
  void anAddedArrayColumnsConstantDefaultReadsLikeLaterRows(TestStack stack) throws Exception {
    try (Pipeline p = new Pipeline(stack, "exact_arrdflt")) {
      p.db.execute("CREATE TABLE a (id int PRIMARY KEY, v text)", "INSERT INTO a VALUES (1, 'old'), (2, 'old')",
          "CREATE PUBLICATION exact_arrdflt_pub FOR TABLE a");
      p.startSource();
      Path replica = p.files.newFile("arrdflt");
      p.startSink("a", replica);
      p.awaitBackfilled(replica, "a", Pipeline.WAIT);
      p.db.execute("ALTER TABLE a ADD COLUMN arr text[] DEFAULT '{a,\"b c\",NULL,\"x,y\",\"q\\\"u\"}', "
          + "ADD COLUMN ints int4[] DEFAULT '{1,NULL,-3}'");
      p.db.execute("INSERT INTO a (id, v) VALUES (3, 'new')",
          "INSERT INTO a VALUES (4, 'explicit', '{a,\"b c\",NULL,\"x,y\",\"q\\\"u\"}', '{1,NULL,-3}')",
          "INSERT INTO a VALUES (5, 'other', '{}', '{7}')");
      String pg = "SELECT id, v, array_to_json(arr)::text, array_to_json(ints)::text FROM a ORDER BY id";
      String lite = "SELECT id, v, arr, ints FROM a ORDER BY id";
      p.awaitSame(replica, pg, lite, Pipeline.WAIT);
      List<List<String>> rows = Pipeline.replica(replica, "SELECT arr, ints FROM a WHERE id <= 4 ORDER BY id");
      assertEquals(List.of("[\"a\",\"b c\",null,\"x,y\",\"q\\\"u\"]", "[1,null,-3]"), rows.get(0));
      assertEquals(List.of(rows.get(0), rows.get(0), rows.get(0), rows.get(0)), rows,
          "rows that got the default when the column was added read like rows written later");
      assertEquals(List.of(List.of("0")), Pipeline.replica(replica,
          "SELECT count(*) FROM \"_pg2lite.columns\" WHERE backfill IS NOT NULL"), "a constant default, not a backfill");
    }
  }

  /**
   * Issue 32: {@code infinity} and {@code -infinity} in date, timestamp and timestamptz, and
   * {@code time '24:00:00'}: valid values that stopped the source (timestamptz, time) or arrived as
   * other dates (date). Each arrives as Postgres prints it, alike whether copied by the backfill
   * (rows 1, 2) or streamed (rows 3, 4 inserted, row 5 updated to them, row 6 inserted and deleted).
   */
  @Test
  void infinityAndTheEndOfTheDayOnTheBackfillAndTheLivePath(TestStack stack) throws Exception {
    try (Pipeline p = new Pipeline(stack, "exact_inf")) {
      String high = "'infinity', 'infinity', 'infinity', '24:00:00'";
      String low = "'-infinity', '-infinity', '-infinity', '00:00:00'";
      p.db.execute("CREATE TABLE e (id int PRIMARY KEY, d date, ts timestamp, tz timestamptz, t time)",
          "INSERT INTO e VALUES (1, " + high + "), (2, " + low + "),"
              + " (5, '2025-01-02', '2025-01-02 03:04:05', '2025-01-02 03:04:05+00', '23:59:59.999999')",
          "CREATE PUBLICATION exact_inf_pub FOR TABLE e");
      p.startSource();
      Path replica = p.files.newFile("inf");
      p.startSink("a", replica);
      p.awaitBackfilled(replica, "e", Pipeline.WAIT);
      p.db.execute("INSERT INTO e VALUES (3, " + high + "), (4, " + low + ")",
          "UPDATE e SET d = 'infinity', ts = '-infinity', tz = '-infinity', t = '24:00:00' WHERE id = 5",
          "INSERT INTO e VALUES (6, " + high + ")", "DELETE FROM e WHERE id = 6");
      p.awaitSame(replica, "SELECT id, d::text, ts::text, tz::text, t::text FROM e ORDER BY id",
          "SELECT id, d, ts, tz, t FROM e ORDER BY id", Pipeline.WAIT);
      List<List<String>> rows = Pipeline.replica(replica, "SELECT d, ts, tz, t FROM e ORDER BY id");
      assertEquals(List.of("infinity", "infinity", "infinity", "24:00:00"), rows.get(0), "copied");
      assertEquals(rows.get(0), rows.get(2), "streamed like copied");
      assertEquals(rows.get(1), rows.get(3), "streamed like copied");
      assertEquals(List.of("infinity", "-infinity", "-infinity", "24:00:00"), rows.get(4), "updated");
    }
  }

  /**
   * Issue 32: types Debezium carries as bytes other than bytea (bit strings, multiranges, text
   * search queries, {@code pg_lsn}, composite types) or as structs (geometric types) arrive as
   * Postgres prints them, alike whether copied by the backfill (row 1) or streamed (row 2 inserted,
   * row 3 updated to the values); they were the hex of that text, bit strings without their
   * length, or a stopped source.
   */
  @Test
  void typesWithoutADocumentedFormArriveAsPostgresText(TestStack stack) throws Exception {
    try (Pipeline p = new Pipeline(stack, "exact_text")) {
      String values = "B'101', B'10101010', '{[1,3),[5,7)}', 'fat & (rat | cat)', '16/B374D848', ROW(1, 'a b'),"
          + " '(1.5,-2)', '((0,0),(1,1))', '<(0,0),2>', '[(0,0),(1,1),(2,0)]'";
      p.db.execute("CREATE TYPE pair AS (n int, s text)",
          "CREATE TABLE x (id int PRIMARY KEY, vb varbit, b8 bit(8), mr int4multirange, q tsquery, l pg_lsn,"
              + " c pair, pt point, bx box, ci circle, pa path)",
          "INSERT INTO x VALUES (1, " + values + "), (3, B'0', B'00000000', '{}', 'a', '0/0', ROW(0, ''),"
              + " '(0,0)', '((0,0),(0,0))', '<(0,0),1>', '[(0,0),(1,1)]')",
          "CREATE PUBLICATION exact_text_pub FOR TABLE x");
      p.startSource();
      Path replica = p.files.newFile("text");
      p.startSink("a", replica);
      p.awaitBackfilled(replica, "x", Pipeline.WAIT);
      p.db.execute("INSERT INTO x VALUES (2, " + values + ")",
          "UPDATE x SET (vb, b8, mr, q, l, c, pt, bx, ci, pa) = (SELECT vb, b8, mr, q, l, c, pt, bx, ci, pa FROM x"
              + " WHERE id = 1) WHERE id = 3");
      String columns = "vb, b8, mr, q, l, c, pt, bx, ci, pa";
      p.awaitSame(replica, "SELECT id, vb::text, b8::text, mr::text, q::text, l::text, c::text, pt::text,"
          + " bx::text, ci::text, pa::text FROM x ORDER BY id", "SELECT id, " + columns + " FROM x ORDER BY id",
          Pipeline.WAIT);
      List<List<String>> rows = Pipeline.replica(replica, "SELECT " + columns + " FROM x ORDER BY id");
      assertEquals(List.of("101", "10101010", "{[1,3),[5,7)}", "'fat' & ( 'rat' | 'cat' )", "16/B374D848",
          "(1,\"a b\")", "(1.5,-2)", "(1,1),(0,0)", "<(0,0),2>", "[(0,0),(1,1),(2,0)]"), rows.get(0), "copied");
      assertEquals(rows.get(0), rows.get(1), "inserted live like copied");
      assertEquals(rows.get(0), rows.get(2), "updated live like copied");
    }
  }

  /**
   * Issue 32: arrays of two and three dimensions arrive as nested JSON arrays, alike whether copied
   * by the backfill (row 1) or streamed (row 2); a two-dimensional array streamed live arrived as
   * {@code [null,null]}.
   */
  @Test
  void arraysOfMoreDimensionsArriveNestedOnBothPaths(TestStack stack) throws Exception {
    try (Pipeline p = new Pipeline(stack, "exact_dims")) {
      String values = "'{{1,2},{3,NULL}}', '{{{1.5,-2},{3,4}},{{5,6},{7,8}}}', '{{a,\"b c\"},{NULL,\"}\"}}',"
          + " '{{true},{false}}', '{{1.50,NaN}}'";
      p.db.execute("CREATE TABLE m (id int PRIMARY KEY, i int4[], f float8[], t text[], b bool[], n numeric[])",
          "INSERT INTO m VALUES (1, " + values + ")", "CREATE PUBLICATION exact_dims_pub FOR TABLE m");
      p.startSource();
      Path replica = p.files.newFile("dims");
      p.startSink("a", replica);
      p.awaitBackfilled(replica, "m", Pipeline.WAIT);
      p.db.execute("INSERT INTO m VALUES (2, " + values + ")");
      p.awaitEqual(replica, "SELECT count(*) FROM m", "SELECT count(*) FROM m");
      List<List<String>> rows = Pipeline.replica(replica, "SELECT i, f, t, b, n FROM m ORDER BY id");
      assertEquals(List.of("[[1,2],[3,null]]", "[[[1.5,-2.0],[3.0,4.0]],[[5.0,6.0],[7.0,8.0]]]",
          "[[\"a\",\"b c\"],[null,\"}\"]]", "[[true],[false]]", "[[\"1.50\",\"NaN\"]]"), rows.get(0), "copied");
      assertEquals(rows.get(0), rows.get(1), "streamed like copied");
    }
  }
}
