package io.pg2lite.sink.bench;

import io.pg2lite.testkit.ConnectorConfigs;
import io.pg2lite.testkit.TestStack;
import io.pg2lite.testkit.connect.ConnectWorker;
import io.pg2lite.testkit.postgres.TestDatabase;
import io.pg2lite.testkit.sqlite.SqliteFiles;
import io.pg2lite.testkit.support.Await;
import io.pg2lite.testkit.support.BenchSettings;
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
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.locks.LockSupport;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.StringDeserializer;

/**
 * Postgres → source → Kafka → sink → replica, end to end on the in-process stack (Postgres,
 * broker and one Connect worker running both connectors, exactly-once source):
 * {@code mvn -B -q -pl connector-sink exec:java -Dexec.classpathScope=test
 * -Dexec.mainClass=io.pg2lite.sink.bench.PipelineBench}. Throughput: from the workload's first
 * statement to the replica holding its last row. Latency: 50 single-row transactions 100 ms apart (after 20 uncounted),
 * commit returned in Postgres → row visible to a separate reader of the replica (polled every ms).
 * CPU: this JVM's (broker, worker, both connectors), not Postgres'. Arguments {@code throughput} and/or
 * {@code latency} pick the workloads (default: both); {@code -Dpg2lite.bench.rounds=N} runs the
 * throughput workloads N times (round 1 cold, later rounds on warm code). {@code -Dpg2lite.bench.eos=false} runs the
 * same on a worker without exactly-once source support (at-least-once: no Kafka transactions; the
 * sink is idempotent by watermark and offset).
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

      boolean throughput = args.length == 0 || List.of(args).contains("throughput");
      boolean latency = args.length == 0 || List.of(args).contains("latency");
      if (throughput) {
        // Round 1 meets cold JVM code (the JIT compilers then take much of the 2 cores); later
        // rounds run the same workloads again on an emptied table, in the same pipeline.
        int rounds = Integer.getInteger("pg2lite.bench.rounds", 1);
        for (int round = 1; round <= rounds; round++) {
          if (rounds > 1) {
            System.out.printf("-- round %d of %d%s%n", round, rounds, round == 1 ? " (cold)" : "");
          }
          if (round > 1) {
            db.execute("TRUNCATE item");
            awaitReplica(replica, "SELECT count(*) FROM item", "0");
          }
          throughputWorkloads(db, replica);
        }
      }
      if (latency) {
        latencyWorkload(db, replica, stack.kafka().bootstrapServers(), topic);
      }
      if (atLeastOnceWorker != null) {
        atLeastOnceWorker.close();
      }
    }
  }

  private static void throughputWorkloads(TestDatabase db, Path replica) throws Exception {
    {
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
    }
  }

  /**
   * Besides commit → replica, a read_committed consumer in its own thread notes when each row's
   * record becomes readable in Kafka, which splits the latency into the source's part (Postgres →
   * Debezium → Kafka transaction committed) and the sink's (fetch → apply → SQLite commit).
   */
  private static void latencyWorkload(TestDatabase db, Path replica, String bootstrap, String topic) throws Exception {
    Map<Long, Long> seenInKafka = new ConcurrentHashMap<>();
    AtomicBoolean stop = new AtomicBoolean();
    Thread watcher = new Thread(() -> watchTopic(bootstrap, topic, seenInKafka, stop), "latency-watcher");
    watcher.start();
    List<Double> toKafka = new ArrayList<>();
    double commitFrom = Double.NaN;
    try {
      List<Double> latencies = new ArrayList<>();
      try (Connection reader = SqliteFiles.open(replica)) {
        for (int i = -20; i < 50; i++) { // the first 20 warm the path up and are not counted
          long id = 1_000_000 + i;
          db.execute("INSERT INTO item VALUES (" + id + ", 'latency', 0, 0)");
          long committed = System.nanoTime();
          while (!present(reader, id)) {
            LockSupport.parkNanos(1_000_000);
          }
          if (i == 0) {
            commitFrom = producerMetric("txn-commit-time-ns-total");
          }
          if (i >= 0) {
            latencies.add((System.nanoTime() - committed) / 1e6);
            Long kafka = seenInKafka.get(id);
            if (kafka != null) {
              toKafka.add((kafka - committed) / 1e6);
            }
          }
          LockSupport.parkNanos(100_000_000);
        }
      }
      Collections.sort(latencies);
      System.out.printf("commit -> visible in replica (50 single-row txs): p50 %.1f ms, p95 %.1f ms, p99 %.1f ms%n",
          pct(latencies, 50), pct(latencies, 95), pct(latencies, 99));
      double commitNs = producerMetric("txn-commit-time-ns-total") - commitFrom;
      if (EXACTLY_ONCE && !Double.isNaN(commitNs)) {
        // Where the exactly-once share goes: the source producer's time in commitTransaction
        // (flush, offsets, EndTxn, markers) over the 50 transactions, each its own Kafka
        // transaction once caught up; and Connect's own figure for its commits.
        System.out.printf("exactly-once commit: producer commitTransaction %.1f ms per transaction, "
            + "Connect offset-commit avg %.1f ms max %.1f ms%n", commitNs / 50 / 1e6,
            taskMetric("offset-commit-avg-time-ms"), taskMetric("offset-commit-max-time-ms"));
      }
      Collections.sort(toKafka);
      System.out.printf("of which commit -> readable in Kafka (%d seen): p50 %.1f ms, p95 %.1f ms, p99 %.1f ms%n",
          toKafka.size(), pct(toKafka, 50), pct(toKafka, 95), pct(toKafka, 99));
    } finally {
      stop.set(true);
      watcher.join();
    }
  }

  private static void watchTopic(String bootstrap, String topic, Map<Long, Long> seen, AtomicBoolean stop) {
    Map<String, Object> props = Map.of(
        ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap,
        ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed",
        ConsumerConfig.FETCH_MAX_WAIT_MS_CONFIG, 1,
        ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class,
        ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class);
    Pattern idField = Pattern.compile("\"id\":(1\\d{6})\\b");
    try (KafkaConsumer<byte[], String> consumer = new KafkaConsumer<>(props)) {
      TopicPartition tp = new TopicPartition(topic, 0);
      consumer.assign(List.of(tp));
      consumer.seekToEnd(List.of(tp));
      while (!stop.get()) {
        for (ConsumerRecord<byte[], String> r : consumer.poll(Duration.ofMillis(50))) {
          long now = System.nanoTime();
          Matcher m = r.value() == null ? null : idField.matcher(r.value());
          if (m != null && m.find()) {
            seen.putIfAbsent(Long.parseLong(m.group(1)), now);
          }
        }
      }
    }
  }

  private static final boolean EXACTLY_ONCE = Boolean.parseBoolean(System.getProperty("pg2lite.bench.eos", "true"));

  /** The worker the bench runs on: the stack's (exactly-once enabled), or one without exactly-once. */
  private static ConnectWorker worker(TestStack stack) {
    if (EXACTLY_ONCE) {
      return stack.connect();
    }
    if (atLeastOnceWorker == null) {
      atLeastOnceWorker = stack.newConnectWorker().set("exactly.once.source.support", "disabled").start();
    }
    return atLeastOnceWorker;
  }

  private static ConnectWorker atLeastOnceWorker;

  private static void start(TestStack stack, TestDatabase db, String topic, Path replica) {
    Map<String, String> s = ConnectorConfigs.source(stack, SOURCE, db.name(), "bench", topic);
    if (!EXACTLY_ONCE) {
      s.remove("exactly.once.support");
      s.remove("transaction.boundary");
    }
    System.out.printf("exactly-once %s%n", EXACTLY_ONCE);
    // Latency tuning (docs/performance.md): Debezium's queue poll interval, and the sink's fetch wait.
    s.put("debezium.poll.interval.ms", System.getProperty("pg2lite.bench.pollMs", "5"));
    String linger = System.getProperty("pg2lite.bench.lingerMs");
    if (linger != null) {
      s.put("producer.override.linger.ms", linger);
    }
    worker(stack).rest().putConnector("bench-source", s);
    worker(stack).rest().awaitRunning("bench-source", Duration.ofSeconds(90));
    Map<String, String> k = ConnectorConfigs.sink(stack, "bench-sink", topic, replica);
    k.put("consumer.override.fetch.max.wait.ms", System.getProperty("pg2lite.bench.fetchWaitMs", "5"));
    worker(stack).rest().putConnector("bench-sink", k);
    worker(stack).rest().awaitRunning("bench-sink", Duration.ofSeconds(90));
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
    return BenchSettings.processCpuNanos();
  }

  /** A metric of the source task's producer (in this JVM: the worker runs here), NaN when absent. */
  private static double producerMetric(String name) {
    return mbeanDouble("kafka.producer:type=producer-metrics,client-id=connector-producer-" + SOURCE + "-0", name);
  }

  /** A metric of Connect's source task (connector-task-metrics), NaN when absent. */
  private static double taskMetric(String name) {
    return mbeanDouble("kafka.connect:type=connector-task-metrics,connector=" + SOURCE + ",task=0", name);
  }

  private static double mbeanDouble(String objectName, String attribute) {
    try {
      Object v = ManagementFactory.getPlatformMBeanServer()
          .getAttribute(new javax.management.ObjectName(objectName), attribute);
      return v instanceof Number n ? n.doubleValue() : Double.NaN;
    } catch (javax.management.JMException e) {
      return Double.NaN;
    }
  }

  private static final String SOURCE = "bench-source";

  private static double pct(List<Double> sorted, int p) {
    return sorted.get(Math.min(sorted.size() - 1, (int) Math.ceil(p / 100.0 * sorted.size()) - 1));
  }
}
