package io.pg2lite.sink.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import io.pg2lite.testkit.ConnectorConfigs;
import io.pg2lite.testkit.TestStack;
import io.pg2lite.testkit.TestStackExtension;
import io.pg2lite.testkit.connect.ConnectWorker;
import io.pg2lite.testkit.fuzz.ReplicaComparator;
import io.pg2lite.testkit.postgres.PostgresServer;
import io.pg2lite.testkit.postgres.TestDatabase;
import io.pg2lite.testkit.sqlite.SqliteFiles;
import io.pg2lite.testkit.support.Await;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Stream;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Issue 32: every type Postgres has, with its edge values, replicates exactly on Postgres 15, 17
 * and 18, whether a row was copied by a backfill or written live (inserted, updated to another
 * value, deleted). One table per type; the replica is compared cell by cell with Postgres' own
 * output of each value ({@link ReplicaComparator}, the randomized differential test's oracle).
 *
 * <p>Also: a type first seen mid-stream (an enum, a domain, a composite created after the source
 * started, and an extension where the binaries ship one) arrives as its text with no restart, and
 * generated columns are replicated where pgoutput sends them (Postgres 18 with
 * {@code publish_generated_columns = stored}) and left out of the replica otherwise.
 *
 * <p>Versions: {@code -Dpg2lite.types.versions=15,17,18} (the default).
 */
@ExtendWith(TestStackExtension.class)
class EveryTypeIT {
  private static final Duration WAIT = Duration.ofSeconds(180);

  /** A type, written as in DDL, and SQL literals of it: edge values, NULLs, more than one dimension. */
  record Case(String name, String type, List<String> values) {
    static Case of(String name, String type, String... values) {
      return new Case(name, type, List.of(values));
    }
  }

  static Stream<Integer> versions() {
    return Stream.of(System.getProperty("pg2lite.types.versions", "15,17,18").split(","))
        .map(String::trim).filter(v -> !v.isEmpty()).map(Integer::valueOf);
  }

  /** The cases every version runs; {@code major} adds what only newer versions have. */
  static List<Case> cases(int major, Set<String> extensions) {
    List<Case> c = new ArrayList<>(List.of(
        Case.of("int2", "int2", "32767", "-32768", "0"),
        Case.of("int4", "int4", "2147483647", "-2147483648"),
        Case.of("int8", "int8", "9223372036854775807", "-9223372036854775808"),
        Case.of("oid", "oid", "4294967295", "0"),
        Case.of("numeric", "numeric", "'NaN'", "'Infinity'", "'-Infinity'", "'12345678901234567890.123456789'",
            "'-0.000000001'", "'1.10'", "0"),
        Case.of("numeric_scaled", "numeric(10,2)", "1.5", "-99999999.99"),
        Case.of("float4", "float4", "'-0'", "'NaN'", "'Infinity'", "'-Infinity'", "'3.4028235e38'", "'1.4e-45'", "'0.1'"),
        Case.of("float8", "float8", "'-0'", "'NaN'", "'Infinity'", "'-Infinity'", "'1.7976931348623157e308'",
            "'4.9e-324'", "'0.1'"),
        Case.of("bool", "bool", "true", "false"),
        Case.of("text", "text", "''", "'a''b'", "'ünïcödé ✓ 𝄞'", "E'line\\nbreak\\ttab'", "'NULL'", "' padded '"),
        Case.of("varchar", "varchar(5)", "'abcde'", "''"),
        Case.of("bpchar", "char(4)", "'ab'", "''", "'abcd'"),
        Case.of("name", "name", "'a name'"),
        Case.of("char1", "\"char\"", "'a'", "'Z'"),
        Case.of("uuid", "uuid", "'a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11'", "'00000000-0000-0000-0000-000000000000'"),
        Case.of("json", "json", "'{\"b\": [1, 2],   \"a\": null}'", "'[]'", "'\"x\"'", "'null'"),
        Case.of("jsonb", "jsonb", "'{\"b\": 1, \"a\": [2.50, \"x\"]}'", "'null'", "'1e3'"),
        Case.of("bytea", "bytea", "'\\x'", "'\\x00ff10'", "decode(repeat('ab', 3000), 'hex')"),
        Case.of("date", "date", "'infinity'", "'-infinity'", "'0044-03-15 BC'", "'4714-11-24 BC'", "'5874897-12-31'",
            "'2025-01-02'", "'0001-01-01 BC'"),
        Case.of("time", "time", "'24:00:00'", "'00:00:00'", "'23:59:59.999999'", "'12:00:00.1'"),
        Case.of("timetz", "timetz", "'24:00:00+00'", "'00:00:00+15:59'", "'12:00:00-15:59'", "'03:04:05.5+05:30'",
            "'24:00:00-05'"),
        Case.of("timestamp", "timestamp", "'infinity'", "'-infinity'", "'4714-11-24 00:00:00 BC'",
            "'294276-12-31 23:59:59.999999'", "'294276-12-31 23:59:59'", "'2025-01-02 03:04:05.123456'",
            "'0044-03-15 12:00:00 BC'"),
        Case.of("timestamptz", "timestamptz", "'infinity'", "'-infinity'", "'4714-11-24 00:00:00+00 BC'",
            "'294276-12-31 23:59:59.999999+00'", "'2025-01-02 03:04:05.123456+05:30'", "'0044-03-15 12:00:00+00 BC'"),
        Case.of("interval", "interval", "'0'", "'1 year 2 mons 3 days 04:05:06.5'", "'-178956970 years -8 mons'",
            "'-2147483648 days'", "'2562047788:00:54.775807'", "'1 day -1 hour'", "'-0.000001 s'"),
        Case.of("enum", "mood", "'happy'", "'sad'"),
        Case.of("domain_int", "posint", "5", "2147483647"),
        Case.of("domain_date", "fardate", "'infinity'", "'0044-03-15 BC'"),
        Case.of("composite", "pair", "ROW(1, 'a b')", "ROW(NULL, NULL)", "ROW(-1, '\"q\",(x)')"),
        Case.of("int4range", "int4range", "'[1,3)'", "'empty'", "'(,)'"),
        Case.of("numrange", "numrange", "'[1.10,NaN)'", "'(,5]'"),
        Case.of("daterange", "daterange", "'[2020-01-01,infinity)'"),
        Case.of("tstzrange", "tstzrange", "'[2020-01-01 00:00:00+02,2021-01-01 00:00:00+00)'"),
        Case.of("int4multirange", "int4multirange", "'{[1,3),[5,7)}'", "'{}'"),
        Case.of("datemultirange", "datemultirange", "'{[2020-01-01,2020-02-01)}'"),
        Case.of("point", "point", "'(1.5,-2)'", "'(0,0)'", "'(1e300,-1e-300)'"),
        Case.of("line", "line", "'{1,2,3}'"),
        Case.of("lseg", "lseg", "'[(0,0),(1,1)]'"),
        Case.of("box", "box", "'((0,0),(1,1))'"),
        Case.of("path", "path", "'[(0,0),(1,1),(2,0)]'", "'((0,0),(1,1))'"),
        Case.of("polygon", "polygon", "'((0,0),(1,1),(2,0))'"),
        Case.of("circle", "circle", "'<(0,0),2>'"),
        Case.of("bit", "bit(8)", "B'10101010'", "B'00000000'"),
        Case.of("varbit", "varbit", "B'101'", "B'0101'", "B''"),
        Case.of("inet", "inet", "'192.168.0.1/24'", "'::1'"),
        Case.of("cidr", "cidr", "'10.0.0.0/8'", "'2001:db8::/32'"),
        Case.of("macaddr", "macaddr", "'08:00:2b:01:02:03'"),
        Case.of("macaddr8", "macaddr8", "'08:00:2b:01:02:03:04:05'"),
        Case.of("tsvector", "tsvector", "'a fat cat:3'", "''"),
        Case.of("tsquery", "tsquery", "'fat & (rat | cat)'", "'!a <-> b'"),
        Case.of("xml", "xml", "'<a x=\"1\">b &amp; c</a>'", "'text only'"),
        Case.of("pg_lsn", "pg_lsn", "'16/B374D848'", "'0/0'", "'FFFFFFFF/FFFFFFFF'"),
        Case.of("money", "money", "'12.34'", "'-92233720368547758.08'", "'92233720368547758.07'", "'0'"),
        Case.of("int4_arr", "int4[]", "'{}'", "'{1,NULL}'", "'{{1,2},{3,4}}'", "'{{{1}},{{2}}}'", "'[0:1]={1,2}'"),
        Case.of("int8_arr", "int8[]", "'{9223372036854775807,-9223372036854775808}'"),
        Case.of("text_arr", "text[]", "'{\"a b\",NULL,\"NULL\",\"}\",\"\\\\\"}'", "'{{a},{b}}'", "'{\"\"}'"),
        Case.of("float8_arr", "float8[]", "'{-0,NaN,Infinity,0.1}'", "'{{1.5},{-0}}'"),
        Case.of("float4_arr", "float4[]", "'{-0,0.1,3.4028235e38}'"),
        Case.of("numeric_arr", "numeric[]", "'{NaN,1.10,-Infinity}'", "'{{1},{2.50}}'"),
        Case.of("bool_arr", "bool[]", "'{{t,f},{NULL,t}}'"),
        Case.of("date_arr", "date[]", "'{infinity,\"0044-03-15 BC\"}'", "'{{2020-01-01},{-infinity}}'"),
        Case.of("timestamp_arr", "timestamp[]", "'{{\"2025-01-02 03:04:05.5\",infinity}}'",
            "'{\"0044-03-15 12:00:00 BC\"}'"),
        Case.of("timestamptz_arr", "timestamptz[]", "'{infinity,\"2025-01-02 03:04:05+02\"}'",
            "'{{\"0044-03-15 12:00:00+00 BC\"}}'"),
        Case.of("time_arr", "time[]", "'{24:00:00,00:00:00.5}'"),
        Case.of("timetz_arr", "timetz[]", "'{\"24:00:00+00\",\"03:04:05.5-05:30\"}'"),
        Case.of("interval_arr", "interval[]", "'{\"1 year\",-00:00:01}'", "'{{\"1 day\"},{PT1H}}'"),
        Case.of("bytea_arr", "bytea[]", "'{\"\\\\x00ff\",NULL}'", "'{{\"\\\\x\"}}'"),
        Case.of("json_arr", "json[]", "ARRAY['{\"a\": 1}'::json, '[2]'::json]"),
        Case.of("jsonb_arr", "jsonb[]", "ARRAY[ARRAY['{\"b\":1,\"a\":2}'::jsonb]]"),
        Case.of("uuid_arr", "uuid[]", "'{a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11}'"),
        Case.of("enum_arr", "mood[]", "'{happy,sad}'", "'{{happy},{NULL}}'"),
        Case.of("bpchar_arr", "char(4)[]", "'{ab,\"\"}'"),
        Case.of("point_arr", "point[]", "'{\"(1,2)\",NULL}'"),
        Case.of("range_arr", "int4range[]", "'{\"[1,3)\",empty}'"),
        Case.of("inet_arr", "inet[]", "'{192.168.0.1/24,::1}'"),
        Case.of("varbit_arr", "varbit[]", "'{101,\"\"}'"),
        Case.of("composite_arr", "pair[]", "ARRAY[ROW(1, 'a b')::pair, NULL]")));
    if (major >= 17) {
      c.add(Case.of("interval_inf", "interval", "'infinity'", "'-infinity'", "'1 day'"));
    }
    if (extensions.contains("citext")) {
      c.add(Case.of("citext", "citext", "'MiXeD'", "''"));
    }
    if (extensions.contains("hstore")) {
      c.add(Case.of("hstore", "hstore", "'a=>1, \"b c\"=>NULL'", "''", "'\"q\\\"u\"=>\"x\\\\y\"'",
          "E'nl=>\"line\\nx\"'"));
    }
    return c;
  }

  @ParameterizedTest(name = "PostgreSQL {0}")
  @MethodSource("versions")
  void everyValueReplicatesExactlyOnBothPaths(int major, TestStack stack) throws Exception {
    PostgresServer own = major == PostgresServer.EXPECTED_MAJOR_VERSION ? null : PostgresServer.start(major);
    PostgresServer server = own == null ? stack.postgres() : own;
    try (TestDatabase db = server.newDatabase("types_pg" + major); SqliteFiles files = new SqliteFiles()) {
      Set<String> extensions = new TreeSet<>(db.queryColumn("SELECT name FROM pg_available_extensions"
          + " WHERE name IN ('citext', 'hstore', 'ltree')"));
      boolean lateExtension = extensions.remove("ltree"); // installed while the source runs
      for (String e : extensions) {
        db.execute("CREATE EXTENSION " + e);
      }
      db.execute("CREATE TYPE mood AS ENUM ('happy', 'sad')", "CREATE DOMAIN posint AS int4 CHECK (VALUE > 0)",
          "CREATE DOMAIN fardate AS date", "CREATE TYPE pair AS (n int, s text)");
      List<Case> cases = cases(major, extensions);
      List<String> tables = new ArrayList<>();
      for (Case k : cases) {
        String t = "t_" + k.name();
        tables.add(t);
        db.execute("CREATE TABLE " + t + " (id int PRIMARY KEY, v " + k.type() + ")");
        for (int i = 0; i < k.values().size(); i++) {
          db.execute("INSERT INTO " + t + " VALUES (" + (i + 1) + ", " + k.values().get(i) + ")");
        }
        db.execute("INSERT INTO " + t + " VALUES (" + (k.values().size() + 1) + ", NULL)");
      }
      db.execute("CREATE TABLE gen (id int PRIMARY KEY, a int, b int GENERATED ALWAYS AS (a * 2) STORED)",
          "INSERT INTO gen (id, a) VALUES (1, 10), (2, NULL)");
      tables.add("gen");
      boolean publishesGenerated = major >= 18;
      db.execute("CREATE PUBLICATION types_pub FOR TABLE " + String.join(", ", tables)
          + (publishesGenerated ? " WITH (publish_generated_columns = stored)" : ""));

      ConnectWorker worker = stack.connect();
      String topic = stack.kafka().uniqueTopicName(db.name());
      String source = db.name() + "-source";
      String sink = db.name() + "-sink";
      Path replica = files.newFile("replica");
      Map<String, String> sourceConfig = ConnectorConfigs.source(server, stack.kafka().bootstrapServers(), source,
          db.name(), "types", topic);
      worker.rest().putConnector(source, sourceConfig);
      try {
        worker.rest().awaitRunning(source, WAIT);
        worker.rest().putConnector(sink, ConnectorConfigs.sink(stack, sink, topic, replica));
        worker.rest().awaitRunning(sink, WAIT);
        awaitSame(db, replica, "the backfill copies");

        // Live: insert each value, update each row to the next value, delete one copied row.
        for (Case k : cases) {
          String t = "t_" + k.name();
          int n = k.values().size();
          StringBuilder tx = new StringBuilder("BEGIN;");
          for (int i = 0; i < n; i++) {
            tx.append("INSERT INTO ").append(t).append(" VALUES (").append(100 + i).append(", ")
                .append(k.values().get(i)).append(");");
            tx.append("INSERT INTO ").append(t).append(" VALUES (").append(200 + i).append(", ")
                .append(k.values().get(i)).append(");");
          }
          tx.append("INSERT INTO ").append(t).append(" VALUES (300, NULL);COMMIT;");
          db.execute(tx.toString());
          for (int i = 0; i < n; i++) {
            db.execute("UPDATE " + t + " SET v = " + k.values().get((i + 1) % n) + " WHERE id = " + (200 + i));
          }
          db.execute("DELETE FROM " + t + " WHERE id = 1", "UPDATE " + t + " SET v = " + k.values().get(0)
              + " WHERE id = 300");
        }
        db.execute("INSERT INTO gen (id, a) VALUES (3, 7)", "UPDATE gen SET a = 11 WHERE id = 1");

        // Types first seen mid-stream (and an extension installed now, where the binaries ship
        // ltree): no restart, each value as its text.
        db.execute("CREATE TYPE mood2 AS ENUM ('new', 'newer')", "CREATE DOMAIN shortname AS varchar(3)",
            "CREATE TYPE triple AS (a int, b int, c int)");
        if (lateExtension) {
          db.execute("CREATE EXTENSION ltree");
        }
        String ext = lateExtension ? ", l ltree" : "";
        db.execute("CREATE TABLE late (id int PRIMARY KEY, m mood2, s shortname, t triple, ma mood2[]" + ext + ")",
            "ALTER PUBLICATION types_pub ADD TABLE late",
            "INSERT INTO late VALUES (1, 'newer', 'abc', ROW(1, NULL, 3), '{{new},{newer}}'"
                + (lateExtension ? ", 'a.b.c'" : "") + ")",
            "INSERT INTO late VALUES (2, 'new', '', NULL, '{}'" + (lateExtension ? ", ''" : "") + ")");
        awaitSame(db, replica, "the live inserts, updates and deletes");
        List<String> first = new ArrayList<>(List.of("newer", "abc", "(1,,3)", "[[\"new\"],[\"newer\"]]"));
        if (lateExtension) {
          first.add("a.b.c");
        }
        assertEquals(first, Pipeline.replica(replica, "SELECT m, s, t, ma" + (lateExtension ? ", l" : "")
            + " FROM late WHERE id = 1").get(0));

        List<String> genColumns = Pipeline.replica(replica, "SELECT name FROM pragma_table_info('gen')").stream()
            .map(r -> r.get(0)).toList();
        if (publishesGenerated) {
          assertTrue(genColumns.contains("b"), "Postgres 18 with publish_generated_columns = stored sends it");
          assertEquals(List.of(List.of("1", "22"), java.util.Arrays.asList("2", null), List.of("3", "14")),
              Pipeline.replica(replica, "SELECT id, b FROM gen ORDER BY id"), "copied, updated and inserted");
        } else {
          assertFalse(genColumns.contains("b"), "pgoutput does not send it: the replica leaves it out");
        }
      } finally {
        worker.rest().delete(sink);
        worker.rest().delete(source);
        Await.until("slot types_slot released", WAIT, () -> {
          try {
            return db.queryColumn("SELECT active::text FROM pg_replication_slots WHERE slot_name = 'types_slot'")
                .stream().noneMatch("true"::equals);
          } catch (SQLException e) {
            return false;
          }
        });
      }
    } finally {
      if (own != null) {
        own.close();
      }
    }
  }

  /** Waits until the replica equals Postgres cell by cell; fails with the differences. */
  private static void awaitSame(TestDatabase db, Path replica, String what) throws Exception {
    ReplicaComparator.Result[] last = new ReplicaComparator.Result[1];
    try {
      Await.until("replica equal to Postgres after " + what, WAIT, () -> {
        try (Connection pg = db.connect(); Connection lite = SqliteFiles.open(replica)) {
          last[0] = new ReplicaComparator(40).compare(pg, "types_pub", lite);
          return last[0].same();
        } catch (SQLException e) {
          return false;
        }
      });
    } catch (AssertionError | RuntimeException e) {
      if (last[0] == null) {
        throw e;
      }
      StringBuilder msg = new StringBuilder("after " + what + ": " + last[0].total() + " differences in "
          + last[0].tables() + " tables:");
      last[0].differences().forEach(d -> msg.append("\n  ").append(d));
      fail(msg.toString(), e);
    }
  }
}
