package io.pg2lite.sink.bench;

import io.pg2lite.testkit.ConnectorConfigs;
import io.pg2lite.testkit.TestStack;
import io.pg2lite.testkit.postgres.TestDatabase;
import io.pg2lite.testkit.sqlite.SqliteFiles;
import io.pg2lite.testkit.support.Await;
import io.pg2lite.testkit.support.BenchSettings;
import io.pg2lite.testkit.support.Percentiles;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.locks.LockSupport;

/**
 * Verification cost (issue 29): a table of {@code rows} rows verified while a probe commits a row
 * every 100 ms and times it from commit to visible in the replica, on the in-process stack
 * (Postgres, broker, one Connect worker running the exactly-once source and the sink):
 * {@code mvn -B -q -pl connector-sink exec:java -Dexec.classpathScope=test
 * -Dexec.mainClass=io.pg2lite.sink.bench.VerifyBench [-Dpg2lite.bench.rows=1000000]
 * [-Dpg2lite.bench.warmSeconds=30] [-Dpg2lite.source.<setting>=value]}.
 *
 * <p>After the table's copy, the probe runs 20 s alone (idle, after 3 s of warm-up). Then one
 * verification of {@code big} (cold: the worker's first, its code not yet compiled), then
 * verifications back to back for {@code warmSeconds} (warm). Each is timed in two parts: the
 * source's (the request's commit to the replica holding the pending answer: the snapshot, the
 * read, the message through Kafka) and the replica's digest (pending to answered); the probe's
 * latencies are taken over the cold one and over the whole warm period. Ends with the line
 * scripts read: {@code verify: rows=N cold_s=… warm_s=… idle_p99_ms=… cold_p99_ms=… warm_p99_ms=…}.
 */
public final class VerifyBench {
  private static final Duration LONG = Duration.ofMinutes(10);

  record Run(double sourceSeconds, double replicaSeconds) {
    double totalSeconds() {
      return sourceSeconds + replicaSeconds;
    }
  }

  public static void main(String[] args) throws Exception {
    int rows = Integer.getInteger("pg2lite.bench.rows", 1_000_000);
    int warmSeconds = Integer.getInteger("pg2lite.bench.warmSeconds", 30);
    try (TestStack stack = TestStack.create(); SqliteFiles files = new SqliteFiles()) {
      TestDatabase db = stack.postgres().newDatabase("verify_bench");
      db.execute(LatencyProbe.CREATE, "CREATE TABLE big (id bigint PRIMARY KEY, name text, qty int, price numeric, "
          + "at timestamptz)", "INSERT INTO big SELECT g, 'item ' || g, g % 100, (g % 1000) / 7.0, now() FROM "
          + "generate_series(1, " + rows + ") g", "VACUUM ANALYZE", "CREATE PUBLICATION verify_bench_pub FOR TABLE big, probe");
      String topic = stack.kafka().uniqueTopicName("verify");
      Path replica = files.newFile("verify");
      Map<String, String> s = ConnectorConfigs.source(stack, "verify-source", db.name(), "verify_bench", topic);
      s.putAll(BenchSettings.withPrefix("pg2lite.source."));
      stack.connect().rest().putConnector("verify-source", s);
      stack.connect().rest().awaitRunning("verify-source", Duration.ofSeconds(90));
      stack.connect().rest().putConnector("verify-sink", ConnectorConfigs.sink(stack, "verify-sink", topic, replica));
      stack.connect().rest().awaitRunning("verify-sink", Duration.ofSeconds(90));
      Await.until("big copied", LONG, () -> count(replica, "SELECT count(*) FROM \"_pg2lite.columns\" WHERE "
          + "table_name = 'big' AND backfill IS NULL") > 0 && count(replica, "SELECT count(*) FROM \"_pg2lite.columns\""
          + " WHERE backfill IS NOT NULL") == 0);

      try (LatencyProbe probe = new LatencyProbe(db::connect, replica, Duration.ofMillis(100)).start()) {
        LockSupport.parkNanos(Duration.ofSeconds(3).toNanos());
        probe.drain(); // warm-up
        LockSupport.parkNanos(Duration.ofSeconds(20).toNanos());
        List<Double> idle = millis(probe.drain());
        System.out.printf("idle: probe p50/p99 %.1f / %.1f ms (%d samples)%n", Percentiles.of(idle, 50),
            Percentiles.of(idle, 99), idle.size());
        Run cold = verify(db, replica);
        List<Double> coldMs = millis(probe.drain());
        System.out.printf("cold (the worker's first verification): %,d rows verified in %.1f s (source: snapshot, "
            + "read, message %.1f s; replica digest %.1f s); probe p50/p99 meanwhile %.1f / %.1f ms (%d samples)%n",
            rows, cold.totalSeconds(), cold.sourceSeconds, cold.replicaSeconds, Percentiles.of(coldMs, 50),
            Percentiles.of(coldMs, 99), coldMs.size());
        LockSupport.parkNanos(Duration.ofSeconds(3).toNanos());
        probe.drain();
        List<Run> warm = new ArrayList<>();
        long until = System.nanoTime() + Duration.ofSeconds(warmSeconds).toNanos();
        while (System.nanoTime() < until) {
          Run r = verify(db, replica);
          warm.add(r);
          System.out.printf("warm %d: %.1f s (source %.1f s, replica %.1f s)%n", warm.size(), r.totalSeconds(),
              r.sourceSeconds, r.replicaSeconds);
        }
        List<Double> warmMs = millis(probe.drain());
        System.out.printf("warm (%d verifications back to back): median %.1f s (source %.1f s, replica %.1f s); "
            + "probe p50/p99 meanwhile %.1f / %.1f ms (%d samples)%n", warm.size(), median(warm, Run::totalSeconds),
            median(warm, Run::sourceSeconds), median(warm, Run::replicaSeconds), Percentiles.of(warmMs, 50),
            Percentiles.of(warmMs, 99), warmMs.size());
        System.out.printf("verify: rows=%d cold_s=%.1f warm_s=%.1f idle_p99_ms=%.1f cold_p99_ms=%.1f "
            + "warm_p99_ms=%.1f%n", rows, cold.totalSeconds(), median(warm, Run::totalSeconds), Percentiles.of(idle, 99),
            Percentiles.of(coldMs, 99), Percentiles.of(warmMs, 99));
      }
    }
  }

  /** One verification of big while the probe runs. */
  private static Run verify(TestDatabase db, Path replica) throws Exception {
    long t0 = System.nanoTime();
    String id = db.queryColumn("SELECT pg2lite.verify('{big}')").get(0);
    String where = " FROM \"_pg2lite.verify\" WHERE id = '" + id + "'";
    Await.until("the verify message at the replica", LONG, () -> count(replica, "SELECT count(*)" + where) > 0);
    long t1 = System.nanoTime();
    Await.until("the replica's answer", LONG, () -> count(replica, "SELECT count(*)" + where
        + " AND result <> 'pending'") > 0);
    long t2 = System.nanoTime();
    String result;
    try (Connection c = SqliteFiles.open(replica); Statement st = c.createStatement();
        ResultSet rs = st.executeQuery("SELECT result" + where)) {
      rs.next();
      result = rs.getString(1);
    }
    if (!"match".equals(result)) {
      throw new IllegalStateException("verification " + id + " answered " + result);
    }
    return new Run((t1 - t0) / 1e9, (t2 - t1) / 1e9);
  }

  private static List<Double> millis(List<LatencyProbe.Sample> samples) {
    List<Double> out = new ArrayList<>();
    samples.forEach(s -> out.add(s.millis()));
    out.sort(null);
    return out;
  }

  private static long count(Path replica, String sql) {
    try (Connection c = SqliteFiles.open(replica); Statement st = c.createStatement(); ResultSet rs = st.executeQuery(sql)) {
      return rs.next() ? rs.getLong(1) : 0;
    } catch (SQLException e) {
      return -1;
    }
  }

  private static double median(List<Run> runs, java.util.function.ToDoubleFunction<Run> f) {
    double[] v = runs.stream().mapToDouble(f).sorted().toArray();
    return v.length % 2 == 1 ? v[v.length / 2] : (v[v.length / 2 - 1] + v[v.length / 2]) / 2;
  }
}
