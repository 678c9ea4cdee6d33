package io.pg2lite.sink.bench;

import io.pg2lite.testkit.ConnectorConfigs;
import io.pg2lite.testkit.TestStack;
import io.pg2lite.testkit.connect.ConnectRestClient;
import io.pg2lite.testkit.connect.WorkerProcess;
import io.pg2lite.testkit.postgres.TestDatabase;
import io.pg2lite.testkit.sqlite.SqliteFiles;
import io.pg2lite.testkit.support.Await;
import io.pg2lite.testkit.support.BenchSettings;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.Map;

/**
 * Schemas of many small tables (issue 33, part 3): what a table costs to copy and to start with.
 * {@code mvn -B -q -pl connector-sink exec:java -Dexec.classpathScope=test
 * -Dexec.mainClass=io.pg2lite.sink.bench.ManyTablesBench [-Dpg2lite.bench.tables=1000]
 * [-Dpg2lite.bench.startTables=2000] [-Dpg2lite.bench.rows=20] [-Dpg2lite.bench.heap=2g]
 * [-Dpg2lite.source.<setting>=value]}
 *
 * <p>One worker process with Connect's default heap ({@code -Xmx2g}, GC log) runs the exactly-once
 * source and the sink, on the test stack's broker and Postgres. Two phases, each with its own
 * database, topic and connectors:
 * <ul>
 *   <li><b>added</b>: a running pipeline (one table {@code live}); {@code tables} tables of
 *       {@code rows} rows are added to the publication in one statement; the time until the
 *       replica holds every one of them, complete, and the cost per table;
 *   <li><b>start</b>: a database that already holds {@code startTables} tables of {@code rows}
 *       rows; the time from registering the source to both connectors RUNNING, then to a row of a
 *       table created after the start visible in the replica (a live change, which the copies of
 *       the existing tables must not hold back), then to every table copied.
 * </ul>
 * Prints each phase and the worker's peak heap in it, and ends with the line scripts read:
 * {@code many-tables: added_s=X per_table_ms=Y start_running_s=Z first_live_s=W start_copied_s=V}.
 */
public final class ManyTablesBench {
  private static final Duration LONG = Duration.ofMinutes(20);

  public static void main(String[] args) throws Exception {
    int tables = Integer.getInteger("pg2lite.bench.tables", 1000);
    int startTables = Integer.getInteger("pg2lite.bench.startTables", 2000);
    int rows = Integer.getInteger("pg2lite.bench.rows", 20);
    String heap = System.getProperty("pg2lite.bench.heap", "2g");
    Path work = Files.createTempDirectory("pg2lite-many-tables");
    try (TestStack stack = TestStack.create(); SqliteFiles files = new SqliteFiles();
        WorkerProcess worker = WorkerProcess.start(stack.kafka().bootstrapServers(), heap, work, true)) {
      ConnectRestClient rest = worker.rest();

      // Phase 1: tables added to a running pipeline.
      TestDatabase db = stack.postgres().newDatabase("many_added");
      db.execute("CREATE TABLE live (id int PRIMARY KEY, v text)", "CREATE SCHEMA many");
      createTables(db, tables, rows);
      db.execute("CREATE PUBLICATION many_added_pub FOR TABLE live");
      Path replica = files.newFile("added");
      String topic = stack.kafka().uniqueTopicName("many_added");
      start(stack, rest, "many_added", db, topic, replica);
      awaitCopied(replica, 1, 0);
      int gcFrom = worker.gcLogLines();
      long t0 = System.nanoTime();
      db.execute("ALTER PUBLICATION many_added_pub ADD TABLES IN SCHEMA many");
      awaitCopied(replica, tables + 1, (long) tables * rows);
      double added = seconds(t0);
      long addedHeap = worker.peakHeapMb(gcFrom);
      System.out.printf("added: %,d tables of %d rows copied in %.1f s, %.1f ms per table; worker peak heap %,d MB "
          + "(-Xmx%s)%n", tables, rows, added, added * 1000 / tables, addedHeap, heap);
      stop(rest, "many_added");

      // Phase 2: a pipeline started on many tables.
      TestDatabase big = stack.postgres().newDatabase("many_start");
      big.execute("CREATE SCHEMA many");
      createTables(big, startTables, rows);
      big.execute("CREATE PUBLICATION many_start_pub FOR TABLES IN SCHEMA many, public");
      Path replica2 = files.newFile("start");
      String topic2 = stack.kafka().uniqueTopicName("many_start");
      gcFrom = worker.gcLogLines();
      long t1 = System.nanoTime();
      start(stack, rest, "many_start", big, topic2, replica2);
      double running = seconds(t1);
      big.execute("CREATE TABLE public.probe (id int PRIMARY KEY)", "INSERT INTO public.probe VALUES (1)");
      Await.until("the live row visible", LONG, () -> count(replica2, "SELECT count(*) FROM probe") == 1);
      double firstLive = seconds(t1);
      awaitCopied(replica2, startTables + 1, (long) startTables * rows);
      double copied = seconds(t1);
      long startHeap = worker.peakHeapMb(gcFrom);
      System.out.printf("start: %,d tables; both connectors RUNNING after %.1f s, a live row visible after %.1f s, "
          + "every table copied after %.1f s; worker peak heap %,d MB%n", startTables, running, firstLive, copied,
          startHeap);
      stop(rest, "many_start");
      perTableCosts(big, files);
      System.out.printf("many-tables: added_s=%.1f per_table_ms=%.1f start_running_s=%.1f first_live_s=%.1f "
          + "start_copied_s=%.1f added_heap_mb=%d start_heap_mb=%d%n", added, added * 1000 / tables, running, firstLive,
          copied, addedHeap, startHeap);
    }
  }

  /**
   * The fixed costs of one small table's copy, measured apart (issue 33: "per-table cost"): a
   * snapshot at an exact LSN (temporary slot with EXPORT_SNAPSHOT, its import, the logical
   * message: what a copy that cannot share one pays), and on the replica publishing a copied
   * table by SQLite's RENAME against moving its rows, in a file of 2,000 tables.
   */
  private static void perTableCosts(TestDatabase db, SqliteFiles files) throws Exception {
    int n = 20;
    long t0 = System.nanoTime();
    for (int i = 0; i < n; i++) {
      java.util.Properties props = new java.util.Properties();
      props.setProperty("user", db.server().user());
      if (db.server().password() != null) {
        props.setProperty("password", db.server().password());
      }
      props.setProperty("replication", "database");
      props.setProperty("preferQueryMode", "simple");
      props.setProperty("assumeMinServerVersion", "10");
      try (Connection snapshot = db.connect(); Connection walsender = java.sql.DriverManager.getConnection(
          db.jdbcUrl(), props); Statement w = walsender.createStatement();
          ResultSet rs = w.executeQuery("CREATE_REPLICATION_SLOT \"bench_" + i + "\" TEMPORARY LOGICAL pgoutput "
              + "EXPORT_SNAPSHOT")) {
        rs.next();
        snapshot.setAutoCommit(false);
        try (Statement s = snapshot.createStatement()) {
          s.execute("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ, READ ONLY");
          s.execute("SET TRANSACTION SNAPSHOT '" + rs.getString("snapshot_name") + "'");
        }
        try (Connection marker = db.connect(); Statement m = marker.createStatement()) {
          m.execute("SELECT pg_logical_emit_message(true, 'bench', '')");
        }
        snapshot.rollback();
      }
    }
    double snapshotMs = (System.nanoTime() - t0) / 1e6 / n;
    Path lite = files.newFile("ddl");
    double renameMs;
    double moveMs;
    try (Connection c = SqliteFiles.open(lite); Statement s = c.createStatement()) {
      c.setAutoCommit(false);
      String cols = " (id INTEGER PRIMARY KEY, name TEXT, qty INTEGER, at TEXT, _0_version TEXT)";
      for (int i = 0; i < 2000; i++) {
        s.execute("CREATE TABLE \"_pg2lite.copying.t_" + i + "\"" + cols);
        s.execute("INSERT INTO \"_pg2lite.copying.t_" + i + "\" WITH RECURSIVE g(v) AS (SELECT 1 UNION ALL "
            + "SELECT v + 1 FROM g WHERE v < 20) SELECT v, 'x', 1, 'y', 'z' FROM g");
      }
      c.commit();
      long r0 = System.nanoTime();
      for (int i = 0; i < 100; i++) {
        s.execute("ALTER TABLE \"_pg2lite.copying.t_" + i + "\" RENAME TO \"t_" + i + "\"");
      }
      renameMs = (System.nanoTime() - r0) / 1e6 / 100;
      long m0 = System.nanoTime();
      for (int i = 100; i < 200; i++) {
        s.execute("CREATE TABLE \"t_" + i + "\"" + cols);
        s.execute("INSERT INTO \"t_" + i + "\" SELECT * FROM \"_pg2lite.copying.t_" + i + "\"");
        s.execute("DROP TABLE \"_pg2lite.copying.t_" + i + "\"");
      }
      moveMs = (System.nanoTime() - m0) / 1e6 / 100;
      c.commit();
    }
    System.out.printf("per table: a snapshot of its own %.1f ms; on a replica of 2,000 tables RENAME %.2f ms, "
        + "moving 20 rows %.2f ms%n", snapshotMs, renameMs, moveMs);
  }

  /** {@code n} tables {@code many.t_1..n} of four columns and {@code rows} rows each, in one round trip. */
  private static void createTables(TestDatabase db, int n, int rows) throws SQLException {
    db.execute("DO $$ BEGIN FOR i IN 1.." + n + " LOOP "
        + "EXECUTE format('CREATE TABLE many.t_%s (id int PRIMARY KEY, name text, qty int, at timestamptz)', i); "
        + "EXECUTE format('INSERT INTO many.t_%s SELECT g, ''item '' || g, g %% 7, now() FROM generate_series(1, "
        + rows + ") g', i); END LOOP; END $$", "ANALYZE");
  }

  private static void start(TestStack stack, ConnectRestClient rest, String name, TestDatabase db, String topic,
      Path replica) {
    Map<String, String> source = ConnectorConfigs.source(stack, name + "-source", db.name(), name, topic);
    source.putAll(BenchSettings.withPrefix("pg2lite.source."));
    rest.putConnector(name + "-source", source);
    rest.awaitRunning(name + "-source", LONG);
    rest.putConnector(name + "-sink", ConnectorConfigs.sink(stack, name + "-sink", topic, replica));
    rest.awaitRunning(name + "-sink", LONG);
  }

  private static void stop(ConnectRestClient rest, String name) {
    rest.delete(name + "-sink");
    rest.delete(name + "-source");
  }

  /** Waits until the replica holds {@code tables} tables, none still being copied, with {@code rows} rows in schema many. */
  private static void awaitCopied(Path replica, int tables, long rows) {
    Await.until(tables + " tables copied", LONG, () -> count(replica, "SELECT count(DISTINCT table_name) FROM "
        + "\"_pg2lite.columns\"") >= tables && count(replica, "SELECT count(*) FROM \"_pg2lite.columns\" WHERE "
        + "backfill IS NOT NULL") == 0 && manyRows(replica) == rows);
  }

  private static long manyRows(Path replica) {
    try (Connection c = SqliteFiles.open(replica); Statement s = c.createStatement()) {
      long total = 0;
      try (ResultSet rs = s.executeQuery("SELECT name FROM sqlite_master WHERE type = 'table' AND name LIKE 'many.t%'")) {
        java.util.List<String> names = new java.util.ArrayList<>();
        while (rs.next()) {
          names.add(rs.getString(1));
        }
        for (String n : names) {
          try (Statement q = c.createStatement(); ResultSet r = q.executeQuery("SELECT count(*) FROM \""
              + n.replace("\"", "\"\"") + "\"")) {
            r.next();
            total += r.getLong(1);
          }
        }
      }
      return total;
    } catch (SQLException e) {
      return -1;
    }
  }

  private static long count(Path replica, String sql) {
    try (Connection c = SqliteFiles.open(replica); Statement s = c.createStatement(); ResultSet rs = s.executeQuery(sql)) {
      return rs.next() ? rs.getLong(1) : -1;
    } catch (SQLException e) {
      return -1;
    }
  }

  private static double seconds(long since) {
    return (System.nanoTime() - since) / 1e9;
  }
}
