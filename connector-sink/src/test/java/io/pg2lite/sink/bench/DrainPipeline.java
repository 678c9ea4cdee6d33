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
import java.util.List;
import java.util.Map;

/**
 * A worker process running one source (all tables) and one sink, and the replica it keeps, for
 * benches that time the pipeline draining a backlog (GrowthBench, DrainBench): each workload is
 * written while the source is paused, then timed from {@code resume} to the replica holding a
 * marker row committed after it. {@code marker} rows tell the bench that everything committed
 * before them has been applied, since the sink applies the log in commit order. So the figure is
 * the pipeline's own rate (Postgres decoding the backlog, the source, Kafka, the sink), not how
 * fast one client can write into Postgres on the same cores.
 */
final class DrainPipeline implements AutoCloseable {
  /** What a workload writes while the source is paused. */
  interface Workload {
    /** Writes the rows and returns how many. */
    long write() throws SQLException;
  }

  final WorkerProcess worker;
  final Path replica;
  final long registeredNanos;
  final double sourceRunningSeconds;
  long firstMarkerNanos;

  private DrainPipeline(WorkerProcess worker, Path replica, long registeredNanos, double sourceRunningSeconds) {
    this.worker = worker;
    this.replica = replica;
    this.registeredNanos = registeredNanos;
    this.sourceRunningSeconds = sourceRunningSeconds;
  }

  /** The benches' table {@code item}, the {@code marker} table and publication {@code growth_pub} of both. */
  static void createItemTables(TestDatabase db) throws SQLException {
    db.execute("CREATE TABLE item (id bigint PRIMARY KEY, name text, qty int, price numeric)",
        "CREATE TABLE marker (id int PRIMARY KEY)", "CREATE PUBLICATION growth_pub FOR ALL TABLES");
  }

  /**
   * Writes {@code txs} transactions of {@code size} rows into item from id {@code next[0] + 1},
   * advancing it; returns the rows written.
   */
  static long insertItems(TestDatabase db, long[] next, int txs, int size) throws SQLException {
    long from = next[0];
    try (Connection c = db.connect(); Statement s = c.createStatement()) {
      for (int t = 0; t < txs; t++) {
        long a = from + (long) t * size;
        s.execute("INSERT INTO item SELECT g, 'item ' || g, g % 100, (g % 1000) / 7.0 FROM generate_series("
            + (a + 1) + ", " + (a + size) + ") g");
      }
    }
    next[0] = from + (long) txs * size;
    return (long) txs * size;
  }

  /**
   * Starts a worker ({@code -Xmx heap}) with source {@code growth-source} (exactly-once or not)
   * over {@code db}'s publication {@code growth_pub} and sink {@code growth-sink}; returns once
   * marker 0, written after the source ran, is in the replica's table {@code marker}.
   */
  static DrainPipeline start(TestStack stack, TestDatabase db, SqliteFiles files, Path work, String heap,
      boolean exactlyOnce, String name) throws Exception {
    Path dir = Files.createDirectories(work.resolve(name));
    WorkerProcess worker = WorkerProcess.start(stack.kafka().bootstrapServers(), heap, dir, exactlyOnce);
    String topic = stack.kafka().uniqueTopicName("growth");
    Path replica = files.newFile(name);
    Map<String, String> s = ConnectorConfigs.source(stack, "growth-source", db.name(), "growth", topic);
    if (!exactlyOnce) {
      s.remove("exactly.once.support");
      s.remove("transaction.boundary");
    }
    ConnectRestClient rest = worker.rest();
    long t0 = System.nanoTime();
    rest.putConnector("growth-source", s);
    rest.awaitRunning("growth-source", Duration.ofMinutes(10));
    double running = (System.nanoTime() - t0) / 1e9;
    db.execute("INSERT INTO marker VALUES (0)");
    // The sink starts after the source (whose first start creates the topic), so the live row's
    // time includes the sink's start: a second or two, the same for every size.
    rest.putConnector("growth-sink", ConnectorConfigs.sink(stack, "growth-sink", topic, replica));
    rest.awaitRunning("growth-sink", Duration.ofSeconds(90));
    DrainPipeline p = new DrainPipeline(worker, replica, t0, running);
    p.awaitMarker(0);
    return p;
  }

  void awaitMarker(int id) throws Exception {
    try (Connection c = SqliteFiles.open(replica)) {
      Await.until("marker " + id + " in the replica", Duration.ofMinutes(30), () -> {
        try (Statement st = c.createStatement();
            ResultSet rs = st.executeQuery("SELECT 1 FROM marker WHERE id = " + id)) {
          return rs.next();
        } catch (SQLException notYet) { // the table is not there yet
          return false;
        }
      });
    }
    if (id == 0) {
      firstMarkerNanos = System.nanoTime();
    }
  }

  /**
   * Waits until the replica holds {@code tables} tables with none still being copied (a table
   * published when the source starts is copied by a backfill, which runs beside the live
   * changes); returns the seconds since the source was registered.
   */
  double awaitCopied(int tables) throws Exception {
    try (Connection c = SqliteFiles.open(replica)) {
      Await.until(tables + " tables copied", Duration.ofMinutes(30), () -> {
        try (Statement st = c.createStatement(); ResultSet rs = st.executeQuery("SELECT count(DISTINCT table_name),"
            + " count(backfill) FROM \"_pg2lite.columns\"")) {
          return rs.next() && rs.getLong(1) >= tables && rs.getLong(2) == 0;
        } catch (SQLException notYet) {
          return false;
        }
      });
    }
    return (System.nanoTime() - registeredNanos) / 1e9;
  }

  /**
   * Pauses the source, writes the workload and marker {@code id}, resumes, and times until the
   * replica holds the marker: {rows/s, CPU µs per row} over the rows the workload wrote.
   */
  double[] drain(TestDatabase db, int id, Workload workload) throws Exception {
    worker.rest().pause("growth-source");
    Thread.sleep(1500); // Connect pauses asynchronously; the task stops polling within a poll
    long rows = workload.write();
    db.execute("INSERT INTO marker VALUES (" + id + ")");
    long cpu0 = cpu();
    long t0 = System.nanoTime();
    worker.rest().resume("growth-source");
    awaitMarker(id);
    double seconds = (System.nanoTime() - t0) / 1e9;
    return new double[] {rows / seconds, (cpu() - cpu0) / 1e3 / rows};
  }

  private long cpu() {
    return BenchSettings.processCpuNanos() + worker.cpuNanos();
  }

  /** The replica against Postgres: the bench's figures mean nothing if a row went missing. */
  void check(TestDatabase db, List<String> tables, long expected) throws Exception {
    long pg = 0;
    long replicaRows = 0;
    try (Connection p = db.connect(); Connection r = SqliteFiles.open(replica)) {
      for (String t : tables) {
        pg += count(p, t);
        replicaRows += count(r, t);
      }
    }
    if (pg != expected || replicaRows != expected) {
      throw new AssertionError("rows: expected " + expected + ", Postgres " + pg + ", replica " + replicaRows);
    }
  }

  private static long count(Connection c, String table) throws SQLException {
    try (Statement st = c.createStatement(); ResultSet rs = st.executeQuery("SELECT count(*) FROM " + table)) {
      rs.next();
      return rs.getLong(1);
    }
  }

  @Override
  public void close() throws Exception {
    worker.close();
  }
}
