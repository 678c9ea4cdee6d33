package io.pg2lite.sink.bench;

import io.pg2lite.testkit.Await;
import io.pg2lite.testkit.TestStack;
import io.pg2lite.testkit.connect.ConnectorConfigs;
import io.pg2lite.testkit.postgres.TestDatabase;
import io.pg2lite.testkit.sqlite.SqliteFiles;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.concurrent.locks.LockSupport;

/**
 * Postgres → source → Kafka → sink → replica, end to end on the in-process stack (Postgres,
 * broker and one Connect worker running both connectors, exactly-once source):
 * {@code mvn -B -q -pl connector-sink exec:java -Dexec.classpathScope=test
 * -Dexec.mainClass=io.pg2lite.sink.bench.PipelineBench}. Throughput: from the workload's first
 * statement to the replica holding its last row. Latency: 50 single-row transactions 100 ms apart,
 * commit returned in Postgres → row visible to a separate reader of the replica (polled every ms).
 * CPU: this JVM's (broker, worker, both connectors), not Postgres'.
 */
public final class PipelineBench {
  public static void main(String[] args) throws Exception {
    Path work = Files.createTempDirectory("pg2lite-pipeline-bench");
    try (TestStack stack = TestStack.create(); SqliteFiles files = new SqliteFiles()) {
      TestDatabase db = stack.postgres().newDatabase("pipeline_bench");
      db.execute("CREATE TABLE item (id bigint PRIMARY KEY, name text, qty int, price numeric)",
          "CREATE PUBLICATION bench_pub FOR TABLE item");
      String topic = stack.kafka().uniqueTopicName("pipeline");
      Path replica = files.newFile("bench");
      start(stack, db, topic, replica);
      System.out.printf("%-36s %10s %10s %12s%n", "workload", "rows", "rows/s", "CPU µs/row");

      long cpu0 = cpu();
      long t0 = System.nanoTime();
      for (int t = 0; t < 100; t++) {
        db.execute("INSERT INTO item SELECT g, 'item ' || g, g % 100, (g % 1000) / 7.0 FROM generate_series("
            + (t * 1000 + 1) + ", " + (t * 1000 + 1000) + ") g");
      }
      awaitReplica(replica, "SELECT count(*) FROM item", "100000");
      report("100k inserts, 100 txs of 1,000 rows", 100_000, t0, cpu0);

      cpu0 = cpu();
      t0 = System.nanoTime();
      try (Connection c = db.connect(); Statement s = c.createStatement()) {
        c.setAutoCommit(false);
        for (int i = 1; i <= 100_000; i++) {
          s.addBatch("UPDATE item SET qty = qty + 1000 WHERE id = " + i);
          if (i % 1000 == 0) {
            s.executeBatch();
            c.commit();
          }
        }
      }
      awaitReplica(replica, "SELECT count(*) FROM item WHERE qty >= 1000", "100000");
      report("100k single-row updates, txs of 1,000", 100_000, t0, cpu0);

      List<Double> latencies = new ArrayList<>();
      try (Connection reader = SqliteFiles.open(replica)) {
        for (int i = 0; i < 50; i++) {
          long id = 1_000_000 + i;
          db.execute("INSERT INTO item VALUES (" + id + ", 'latency', 0, 0)");
          long committed = System.nanoTime();
          while (!present(reader, id)) {
            LockSupport.parkNanos(1_000_000);
          }
          latencies.add((System.nanoTime() - committed) / 1e6);
          LockSupport.parkNanos(100_000_000);
        }
      }
      Collections.sort(latencies);
      System.out.printf("commit -> visible in replica (50 single-row txs): p50 %.1f ms, p95 %.1f ms, p99 %.1f ms%n",
          pct(latencies, 50), pct(latencies, 95), pct(latencies, 99));
    }
  }

  private static void start(TestStack stack, TestDatabase db, String topic, Path replica) {
    Map<String, String> s = ConnectorConfigs.source(stack, "bench-source", db.name(), "bench", topic);
    // Latency tuning (docs/performance.md): Debezium's queue poll interval, and the sink's fetch wait.
    s.put("debezium.poll.interval.ms", System.getProperty("pg2lite.bench.pollMs", "5"));
    stack.connect().rest().putConnector("bench-source", s);
    stack.connect().rest().awaitRunning("bench-source", Duration.ofSeconds(90));
    Map<String, String> k = ConnectorConfigs.sink(stack, "bench-sink", topic, replica);
    k.put("consumer.override.fetch.max.wait.ms", System.getProperty("pg2lite.bench.fetchWaitMs", "5"));
    stack.connect().rest().putConnector("bench-sink", k);
    stack.connect().rest().awaitRunning("bench-sink", Duration.ofSeconds(90));
    awaitReplica(replica, "SELECT count(*) FROM item", "0");
  }

  private static void awaitReplica(Path replica, String sql, String expected) {
    Await.until("replica: " + sql + " = " + expected, Duration.ofMinutes(10), () -> {
      try (Connection c = SqliteFiles.open(replica); Statement s = c.createStatement(); ResultSet rs = s.executeQuery(sql)) {
        return rs.next() && expected.equals(rs.getString(1));
      } catch (SQLException e) {
        return false;
      }
    });
  }

  private static boolean present(Connection reader, long id) throws SQLException {
    try (Statement s = reader.createStatement(); ResultSet rs = s.executeQuery("SELECT 1 FROM item WHERE id = " + id)) {
      return rs.next();
    }
  }

  private static void report(String name, long rows, long t0, long cpu0) {
    double seconds = (System.nanoTime() - t0) / 1e9;
    double cpuMicros = (cpu() - cpu0) / 1e3;
    System.out.printf("%-36s %10d %10.0f %12.1f%n", name, rows, rows / seconds, cpuMicros / rows);
  }

  private static long cpu() {
    return ((com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean()).getProcessCpuTime();
  }

  private static double pct(List<Double> sorted, int p) {
    return sorted.get(Math.min(sorted.size() - 1, (int) Math.ceil(p / 100.0 * sorted.size()) - 1));
  }
}
