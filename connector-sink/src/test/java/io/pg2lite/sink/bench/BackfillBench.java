package io.pg2lite.sink.bench;

import io.pg2lite.protocol.codec.ChangeLogCodec;
import io.pg2lite.protocol.message.DataChange;
import io.pg2lite.protocol.message.Message;
import io.pg2lite.protocol.message.SchemaChange;
import io.pg2lite.testkit.Await;
import io.pg2lite.testkit.TestStack;
import io.pg2lite.testkit.connect.ConnectorConfigs;
import io.pg2lite.testkit.kafka.TopicReader;
import io.pg2lite.testkit.postgres.TestDatabase;
import io.pg2lite.testkit.sqlite.SqliteFiles;
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
import org.apache.kafka.clients.consumer.ConsumerRecord;

/**
 * Backfill of a large table while live changes flow, on the in-process stack (Postgres, broker,
 * one Connect worker running the exactly-once source and the sink):
 * {@code mvn -B -q -pl connector-sink exec:java -Dexec.classpathScope=test
 * -Dexec.mainClass=io.pg2lite.sink.bench.BackfillBench [-Dpg2lite.bench.rows=1000000]
 * [-Dpg2lite.bench.batchRows=1000] [-Dpg2lite.bench.txBatches=20] [-Dpg2lite.bench.maxRate=0]}.
 *
 * <p>Prints: live commit → visible-in-replica latency (single-row transactions 100 ms apart on
 * another table) while idle and during the copy; the copy rate at the source (first to last
 * backfill record, from the records' timestamps) and end to end (ALTER PUBLICATION → the replica
 * shows the table complete).
 */
public final class BackfillBench {
  public static void main(String[] args) throws Exception {
    int rows = Integer.getInteger("pg2lite.bench.rows", 1_000_000);
    try (TestStack stack = TestStack.create(); SqliteFiles files = new SqliteFiles()) {
      TestDatabase db = stack.postgres().newDatabase("backfill_bench");
      db.execute("CREATE TABLE live (id bigint PRIMARY KEY, v text)",
          "CREATE TABLE big (id bigint PRIMARY KEY, name text, qty int, price numeric, at timestamptz)",
          "INSERT INTO big SELECT g, 'item ' || g, g % 100, (g % 1000) / 7.0, now() FROM generate_series(1, " + rows + ") g",
          "CREATE PUBLICATION bench_pub FOR TABLE live");
      String topic = stack.kafka().uniqueTopicName("backfill");
      Path replica = files.newFile("bench");
      Map<String, String> s = ConnectorConfigs.source(stack, "bench-source", db.name(), "bench", topic);
      s.put("backfill.batch.rows", System.getProperty("pg2lite.bench.batchRows", "1000"));
      s.put("backfill.transaction.batches", System.getProperty("pg2lite.bench.txBatches", "20"));
      s.put("backfill.max.rows.per.second", System.getProperty("pg2lite.bench.maxRate", "0"));
      stack.connect().rest().putConnector("bench-source", s);
      stack.connect().rest().awaitRunning("bench-source", Duration.ofSeconds(90));
      Map<String, String> k = ConnectorConfigs.sink(stack, "bench-sink", topic, replica);
      k.put("consumer.override.fetch.max.wait.ms", "5");
      stack.connect().rest().putConnector("bench-sink", k);
      stack.connect().rest().awaitRunning("bench-sink", Duration.ofSeconds(90));
      awaitCompleted(replica, "live", Duration.ofMinutes(2));

      long[] nextId = {1};
      List<Double> idle = new ArrayList<>();
      for (int i = -20; i < 50; i++) {
        double ms = liveLatency(db, replica, nextId[0]++);
        if (i >= 0) {
          idle.add(ms);
        }
      }
      long t0 = System.nanoTime();
      db.execute("ALTER PUBLICATION bench_pub ADD TABLE big");
      List<Double> during = new ArrayList<>();
      while (!completed(replica, "big")) {
        during.add(liveLatency(db, replica, nextId[0]++));
      }
      double endToEnd = (System.nanoTime() - t0) / 1e9;
      double sourceSeconds = sourceCopySeconds(stack.kafka().bootstrapServers(), topic);
      Collections.sort(idle);
      Collections.sort(during);
      System.out.printf("backfill of %,d rows: source %.1f s (%,.0f rows/s), end to end %.1f s (%,.0f rows/s)%n",
          rows, sourceSeconds, rows / sourceSeconds, endToEnd, rows / endToEnd);
      System.out.printf("live commit -> replica, idle (%d txs): p50 %.1f ms, p99 %.1f ms%n", idle.size(),
          pct(idle, 50), pct(idle, 99));
      System.out.printf("live commit -> replica, during the copy (%d txs): p50 %.1f ms, p99 %.1f ms%n",
          during.size(), pct(during, 50), pct(during, 99));
      System.out.printf("replica file: %,d MB%n", java.nio.file.Files.size(replica) / (1024 * 1024));
    }
  }

  private static double liveLatency(TestDatabase db, Path replica, long id) throws Exception {
    db.execute("INSERT INTO live VALUES (" + id + ", 'x')");
    long committed = System.nanoTime();
    try (Connection c = SqliteFiles.open(replica)) {
      while (!present(c, id)) {
        LockSupport.parkNanos(1_000_000);
      }
    }
    double ms = (System.nanoTime() - committed) / 1e6;
    LockSupport.parkNanos(100_000_000);
    return ms;
  }

  private static boolean present(Connection c, long id) throws SQLException {
    try (Statement s = c.createStatement(); ResultSet rs = s.executeQuery("SELECT 1 FROM live WHERE id = " + id)) {
      return rs.next();
    }
  }

  private static boolean completed(Path replica, String table) {
    try (Connection c = SqliteFiles.open(replica); Statement s = c.createStatement();
        ResultSet rs = s.executeQuery("SELECT count(*), sum(backfill IS NOT NULL) FROM \"_pg2lite.columns\" WHERE table_name = '"
            + table + "'")) {
      return rs.next() && rs.getLong(1) > 0 && rs.getLong(2) == 0;
    } catch (SQLException e) {
      return false;
    }
  }

  private static void awaitCompleted(Path replica, String table, Duration timeout) {
    Await.until(table + " complete in the replica", timeout, () -> completed(replica, table));
  }

  /** From the first backfill record of big to its backfill-completed, by record timestamps. */
  private static double sourceCopySeconds(String bootstrap, String topic) {
    ChangeLogCodec codec = new ChangeLogCodec();
    long first = -1;
    long last = -1;
    try (TopicReader r = new TopicReader(bootstrap, topic)) {
      for (ConsumerRecord<byte[], byte[]> rec : r.readFor(Duration.ofSeconds(20))) {
        Message m = codec.decode(rec.value()).message();
        if (m instanceof DataChange.Backfill b && b.relation().name().equals("big") && first < 0) {
          first = rec.timestamp();
        } else if (m instanceof SchemaChange.BackfillCompleted c && c.relation().name().equals("big")) {
          last = rec.timestamp();
        }
      }
    }
    return (last - first) / 1000.0;
  }

  private static double pct(List<Double> sorted, int p) {
    return sorted.get(Math.min(sorted.size() - 1, (int) Math.ceil(p / 100.0 * sorted.size()) - 1));
  }
}
