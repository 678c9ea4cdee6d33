package io.pg2lite.replica.apply;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.pg2lite.protocol.message.DataChange;
import io.pg2lite.protocol.message.SchemaChange;
import io.pg2lite.protocol.schema.BackfillId;
import io.pg2lite.protocol.schema.Column;
import io.pg2lite.protocol.schema.ColumnSpec;
import io.pg2lite.protocol.schema.QualifiedName;
import io.pg2lite.protocol.schema.Relation;
import io.pg2lite.protocol.schema.RowKey;
import io.pg2lite.protocol.schema.TableMetadata;
import io.pg2lite.protocol.schema.TableSpec;
import io.pg2lite.protocol.stored.StoredForm;
import io.pg2lite.protocol.testing.ChangeMessages;
import io.pg2lite.protocol.value.Row;
import io.pg2lite.protocol.value.Value;
import io.pg2lite.protocol.watermark.Watermark;
import io.pg2lite.replica.lite.SqlNames;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.Statement;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Values the replica must keep exactly (issue 10, defect 6): -0.0 of float columns, on the live
 * and the backfill path, and constant defaults of added columns, which must read exactly like the
 * same value written later by the live stream.
 */
class ExactValuesTest {
  private static final QualifiedName T = new QualifiedName("public", "f");
  private static final Relation F = new Relation("public", "f", RowKey.of("id"));

  @TempDir
  Path dir;

  private static SchemaChange.CreateTable createF(Map<String, BackfillId> backfill) {
    Map<String, ColumnSpec> cols = new LinkedHashMap<>();
    cols.put("id", ColumnSpec.of(1, "int8"));
    cols.put("d", ColumnSpec.of(2, "float8"));
    cols.put("r", ColumnSpec.of(3, "float4"));
    cols.put("ds", ColumnSpec.of(4, "float8[]"));
    return new SchemaChange.CreateTable(new TableSpec("public", "f", cols, List.of("id")),
        new TableMetadata(2200, 1, Map.of("id", 1)), backfill);
  }

  private static final String QUERY = "SELECT id, typeof(d), d, typeof(r), r, ds FROM f ORDER BY id";

  private static final List<List<Object>> EXPECTED = List.of(
      List.of(1, "text", StoredForm.NEGATIVE_ZERO, "text", StoredForm.NEGATIVE_ZERO, "[-0.0,0.0,\"NaN\"]"),
      List.of(2, "real", 0.0, "real", 1.5, "[]"),
      List.of(3, "text", "NaN", "text", "-Infinity", "[1.5]"));

  private static List<List<Value>> rows() {
    Value.Array ds = new Value.Array(List.of(new Value.Float(-0.0), new Value.Float(0.0), Value.of("NaN")));
    return List.of(
        List.of(Value.of(1), new Value.Float(-0.0), new Value.Float(-0.0), ds),
        List.of(Value.of(2), new Value.Float(0.0), new Value.Float(1.5), new Value.Array(List.of())),
        List.of(Value.of(3), Value.of("NaN"), Value.of("-Infinity"), new Value.Array(List.of(new Value.Float(1.5)))));
  }

  @Test
  void negativeZeroIsKeptOnTheLivePath() throws Exception {
    ChangeMessages m = ChangeMessages.after("0/100").begin(1).change(createF(null));
    for (List<Value> r : rows()) {
      m.insert(F, Row.of("id", r.get(0), "d", r.get(1), "r", r.get(2), "ds", r.get(3)));
    }
    try (ReplicaHarness h = new ReplicaHarness(dir)) {
      h.feed(m.commit("0/200").entries());
      assertEquals(EXPECTED, h.query(QUERY));
      assertEquals(Double.doubleToRawLongBits(-0.0), Double.doubleToRawLongBits(Double.parseDouble(
          StoredForm.NEGATIVE_ZERO)), "the stored text reads back as -0.0");
    }
  }

  @Test
  void negativeZeroIsKeptOnTheBackfillPath() throws Exception {
    try (ReplicaHarness h = new ReplicaHarness(dir)) {
      h.feed(ChangeMessages.after("0/100").begin(1).change(createF(Map.of("id", new BackfillId(1), "d",
          new BackfillId(2), "r", new BackfillId(3), "ds", new BackfillId(4)))).commit("0/200")
          .beginBackfill().change(new DataChange.Backfill(F, List.of("d", "r", "ds"), Watermark.fromLsn("0/150"),
              rows(), null)).commitBackfill().entries());
      // f is copied whole and its copy has not completed: its rows are under the copying name.
      assertEquals(EXPECTED, h.query(QUERY.replace(" FROM f ", " FROM " + SqlNames.quote(SqlNames.copying("f")) + " ")));
    }
  }

  /** Why -0.0 cannot be a REAL nor numeric text: SQLite stores both as the integer 0 in a REAL column. */
  @Test
  void sqliteLosesTheSignOfZeroInARealColumn() throws Exception {
    try (Connection c = DriverManager.getConnection("jdbc:sqlite:" + dir.resolve("plain.db"));
        Statement s = c.createStatement()) {
      s.execute("CREATE TABLE t (x \"float8|REAL\")");
      s.execute("INSERT INTO t VALUES (-0.0), ('-0'), ('-0.0'), ('" + StoredForm.NEGATIVE_ZERO + "')");
      try (java.sql.ResultSet rs = s.executeQuery("SELECT typeof(x), x FROM t")) {
        for (int i = 0; i < 3; i++) {
          rs.next();
          assertEquals(0L, Double.doubleToRawLongBits(rs.getDouble(2)), "row " + i + " lost the sign");
        }
        rs.next();
        assertEquals("text", rs.getString(1));
      }
    }
  }

  /**
   * An added column's constant default (as pg_get_expr prints it, which older sources sent, and
   * in the wire form of ConstantDefault), and the value the live stream carries for a row holding
   * the same value: both must be stored alike.
   */
  static Stream<Arguments> defaults() {
    return Stream.of(
        Arguments.of("text[]", "b", "'{a,\"b c\",NULL}'::text[]",
            new Value.Array(List.of(Value.of("a"), Value.of("b c"), Value.NULL))),
        Arguments.of("text[]", "b", "'{\"it''s\",\"x,y\",\"q\\\"u\",\"back\\\\slash\",\"NULL\"}'::text[]",
            new Value.Array(List.of(Value.of("it's"), Value.of("x,y"), Value.of("q\"u"), Value.of("back\\slash"),
                Value.of("NULL")))),
        Arguments.of("int4[]", "b", "'{1,NULL,-3}'::integer[]",
            new Value.Array(List.of(Value.of(1), Value.NULL, Value.of(-3)))),
        Arguments.of("int4[]", "b", "'{{1,2},{3,4}}'::integer[]", new Value.Array(List.of(
            new Value.Array(List.of(Value.of(1), Value.of(2))), new Value.Array(List.of(Value.of(3), Value.of(4)))))),
        Arguments.of("varchar[]", "b", "'{}'::character varying[]", new Value.Array(List.of())),
        Arguments.of("float8", null, "'-0'::double precision", new Value.Float(-0.0)),
        Arguments.of("float8", null, "'NaN'::double precision", Value.of("NaN")),
        Arguments.of("float8", null, "1.5", new Value.Float(1.5)),
        Arguments.of("float4", null, "'0.1'::real", new Value.Float((double) 0.1f)),
        Arguments.of("text", null, "'it''s'::text", Value.of("it's")),
        Arguments.of("int4", null, "(-1)", Value.of(-1)),
        Arguments.of("bool", null, "true", Value.of(true)),
        // The source accepts a cast boolean constant (a domain over bool prints one); the sink threw.
        Arguments.of("bool", null, "false::boolean", Value.of(false)),
        Arguments.of("bool", null, "true::boolean", Value.of(true)),
        // The same constants in the wire form of ConstantDefault (what the source sends now).
        Arguments.of("text[]", "b", "'{\"a\",\"b c\",NULL}'",
            new Value.Array(List.of(Value.of("a"), Value.of("b c"), Value.NULL))),
        Arguments.of("float8[]", "b", "'{-0.0,\"NaN\",1.5}'",
            new Value.Array(List.of(new Value.Float(-0.0), Value.of("NaN"), new Value.Float(1.5)))),
        Arguments.of("float8", null, "-0.0", new Value.Float(-0.0)),
        Arguments.of("float8", null, "'NaN'", Value.of("NaN")),
        Arguments.of("float8", null, "'-Infinity'", Value.of("-Infinity")),
        Arguments.of("float8", null, "1.0E300", new Value.Float(1e300)),
        Arguments.of("float4", null, "0.1", new Value.Float((double) 0.1f)),
        Arguments.of("numeric", null, "1.50", Value.of("1.50")),
        Arguments.of("numeric", null, "'NaN'", Value.of("NaN")),
        Arguments.of("text", null, "'it''s'", Value.of("it's")),
        Arguments.of("text", null, "'true'", Value.of("true")),
        Arguments.of("int8", null, "-1", Value.of(-1)),
        Arguments.of("int4", null, "'7'::integer", Value.of(7)),
        Arguments.of("bool", null, "false", Value.of(false)));
  }

  @ParameterizedTest(name = "{0} DEFAULT {2}")
  @MethodSource("defaults")
  void aConstantDefaultIsStoredAsTheLiveStreamStoresTheSameValue(String type, String elemClass, String dflt,
      Value live) throws Exception {
    Map<String, ColumnSpec> cols = new LinkedHashMap<>();
    cols.put("id", ColumnSpec.of(1, "int8"));
    ColumnSpec spec = new ColumnSpec(2, type, "b", elemClass, null, null, dflt);
    try (ReplicaHarness h = new ReplicaHarness(dir)) {
      h.feed(ChangeMessages.after("0/100").begin(1).change(new SchemaChange.CreateTable(new TableSpec("public", "f",
          cols, List.of("id")), new TableMetadata(2200, 1, Map.of("id", 1)), null))
          .insert(F, Row.of("id", Value.of(1))).commit("0/200")
          .begin(2).change(new SchemaChange.AddColumn(T, new Column("c", spec), null, null))
          .insert(F, Row.of("id", Value.of(2), "c", live)).commit("0/300").entries());
      List<List<Object>> rows = h.query("SELECT typeof(c), c FROM f ORDER BY id");
      assertEquals(rows.get(1), rows.get(0), "the old row (default) reads like the new row (live stream)");
    }
  }
}
