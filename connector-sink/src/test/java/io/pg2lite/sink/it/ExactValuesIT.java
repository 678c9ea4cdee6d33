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
}
