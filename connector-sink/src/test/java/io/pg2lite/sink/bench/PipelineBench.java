package io.pg2lite.sink.bench;

import io.pg2lite.testkit.support.Percentiles;
import io.pg2lite.testkit.ConnectorConfigs;
import io.pg2lite.testkit.TestStack;
import io.pg2lite.testkit.connect.ConnectWorker;
import io.pg2lite.testkit.postgres.TestDatabase;
import io.pg2lite.testkit.sqlite.SqliteFiles;
import io.pg2lite.testkit.support.Await;
import io.pg2lite.testkit.support.BenchSettings;
import io.pg2lite.testkit.connect.ConnectRestClient;
import io.pg2lite.testkit.connect.WorkerProcess;
import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.net.ServerSocket;
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
import javax.management.JMException;
import javax.management.MBeanServerConnection;
import javax.management.ObjectName;
import javax.management.remote.JMXConnectorFactory;
import javax.management.remote.JMXServiceURL;
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
 * commit returned in Postgres → row visible to a separate reader of the replica (polled every 0.2 ms).
 * CPU: the worker's and this JVM's (the broker), not Postgres'. The worker runs in a JVM of its own
 * ({@link WorkerProcess}, 1 GB heap, JMX on a local port for its metrics); {@code
 * -Dpg2lite.bench.workerJvm=false} runs it in this JVM instead. After the latency workload the bench
 * prints both tasks' latency stages ({@code LatencyStages}, reset before the workload), which split
 * the path Postgres → source → Kafka → sink → replica. Arguments {@code throughput} and/or
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
      start(stack, db, topic, replica, work);
      System.out.printf("%-36s %10s %10s %12s %14s%n", "workload", "rows", "rows/s", "CPU µs/row",
          "Postgres rows/s");

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
        if (throughput) {
          // The rounds leave dead rows that autovacuum would clean up during the latency workload,
          // which measures single transactions on a quiet database: clean them up first, then settle.
          db.execute("VACUUM item");
          Thread.sleep(Long.getLong("pg2lite.bench.settleMs", 3000));
        }
        latencyWorkload(db, replica, stack.kafka().bootstrapServers(), topic);
      }
      if (atLeastOnceWorker != null) {
        atLeastOnceWorker.close();
      }
      if (workerProcess != null) {
        workerProcess.close();
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
      long written = System.nanoTime();
      awaitReplica(replica, "SELECT count(*) FROM item", "100000");
      report("100k inserts, 100 txs of 1,000 rows", 100_000, t0, cpu0, written);

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
      written = System.nanoTime();
      awaitReplica(replica, "SELECT count(*) FROM item WHERE qty >= 1000", "100000");
      report("100k single-row updates, txs of 1,000", 100_000, t0, cpu0, written);
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
    // The watcher fetches every millisecond: 1,000 requests a second that the broker serves beside
    // the pipeline's, and that slowed its produce requests. The source's stages say when Kafka had
    // each transaction; -Dpg2lite.bench.watcher=true adds the watcher's own view.
    boolean watching = Boolean.getBoolean("pg2lite.bench.watcher");
    Thread watcher = new Thread(() -> watchTopic(bootstrap, topic, seenInKafka, stop), "latency-watcher");
    if (watching) {
      watcher.start();
    }
    List<Double> toKafka = new ArrayList<>();
    double commitFrom = Double.NaN;
    boolean stagesReset = false;
    try {
      List<Double> latencies = new ArrayList<>();
      try (Connection reader = SqliteFiles.open(replica)) {
        // The first ones warm the path up and are not counted: 20 by default, 100 ms apart like the
        // measured ones; -Dpg2lite.bench.latencyWarmup=N -Dpg2lite.bench.latencyWarmupGapMs=G runs N,
        // G ms apart, enough for the JIT to compile the one-record paths (a steady stream keeps them hot).
        int warmup = Integer.getInteger("pg2lite.bench.latencyWarmup", 20);
        long warmupGapNanos = Long.getLong("pg2lite.bench.latencyWarmupGapMs", 100) * 1_000_000;
        for (int i = -warmup; i < 50; i++) {
          long id = 1_000_000 + i; // the warm-up ones, below 1,000,000, are not watched
          db.execute("INSERT INTO item VALUES (" + id + ", 'latency', 0, 0)");
          long committed = System.nanoTime();
          while (!present(reader, id)) {
            LockSupport.parkNanos(200_000); // 0.2 ms: the reading adds 0.1 ms on average to what it measures
          }
          if (i == 0) {
            commitFrom = producerMetric("txn-commit-time-ns-total");
            stagesReset = resetStages(); // the warm-up's transactions are not counted
          }
          if (i >= 0) {
            latencies.add((System.nanoTime() - committed) / 1e6);
            Long kafka = seenInKafka.get(id);
            if (kafka != null) {
              toKafka.add((kafka - committed) / 1e6);
            }
          }
          LockSupport.parkNanos(i < -1 ? warmupGapNanos : 100_000_000);
        }
      }
      Collections.sort(latencies);
      System.out.printf("commit -> visible in replica (50 single-row txs): p50 %.1f ms, p95 %.1f ms, p99 %.1f ms%n",
          Percentiles.of(latencies, 50), Percentiles.of(latencies, 95), Percentiles.of(latencies, 99));
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
      if (watching) {
        System.out.printf("of which commit -> readable in Kafka (%d seen): p50 %.1f ms, p95 %.1f ms, p99 %.1f ms%n",
            toKafka.size(), Percentiles.of(toKafka, 50), Percentiles.of(toKafka, 95), Percentiles.of(toKafka, 99));
      }
      if (stagesReset) {
        System.out.printf("stages, source (LatencyStages): %s%n", stages("source"));
        System.out.printf("stages, sink (LatencyStages): %s%n", stages("sink"));
      }
    } finally {
      stop.set(true);
      if (watching) {
        watcher.join();
      }
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

  private static final boolean WORKER_JVM = Boolean.parseBoolean(System.getProperty("pg2lite.bench.workerJvm", "true"));

  /** The worker the bench runs on, in this JVM: the stack's (exactly-once enabled), or one without exactly-once. */
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
  /** The worker in a JVM of its own, and its MBeans; null with {@code workerJvm=false}. */
  private static WorkerProcess workerProcess;
  private static MBeanServerConnection workerMBeans;

  private static ConnectRestClient rest(TestStack stack) {
    return workerProcess != null ? workerProcess.rest() : worker(stack).rest();
  }

  /** A worker JVM with JMX on a free local port (no authentication: loopback only, a bench). */
  private static void startWorkerProcess(TestStack stack, Path work) throws IOException {
    int jmx;
    try (ServerSocket s = new ServerSocket(0)) {
      jmx = s.getLocalPort();
    }
    workerProcess = WorkerProcess.start(stack.kafka().bootstrapServers(), "1g", work, EXACTLY_ONCE, null, Map.of(),
        List.of("-Dcom.sun.management.jmxremote.port=" + jmx, "-Dcom.sun.management.jmxremote.rmi.port=" + jmx,
            "-Dcom.sun.management.jmxremote.authenticate=false", "-Dcom.sun.management.jmxremote.ssl=false",
            "-Dcom.sun.management.jmxremote.host=127.0.0.1", "-Djava.rmi.server.hostname=127.0.0.1"));
    JMXServiceURL url = new JMXServiceURL("service:jmx:rmi:///jndi/rmi://127.0.0.1:" + jmx + "/jmxrmi");
    workerMBeans = JMXConnectorFactory.connect(url).getMBeanServerConnection();
  }

  private static MBeanServerConnection mbeans() {
    return workerMBeans != null ? workerMBeans : ManagementFactory.getPlatformMBeanServer();
  }

  private static void start(TestStack stack, TestDatabase db, String topic, Path replica, Path work)
      throws IOException {
    if (WORKER_JVM) {
      startWorkerProcess(stack, work);
    }
    System.out.printf("worker in %s%n", WORKER_JVM ? "a JVM of its own (pid " + workerProcess.pid() + ")" : "this JVM");
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
    rest(stack).putConnector("bench-source", s);
    rest(stack).awaitRunning("bench-source", Duration.ofSeconds(90));
    Map<String, String> k = ConnectorConfigs.sink(stack, "bench-sink", topic, replica);
    k.put("consumer.override.fetch.max.wait.ms", System.getProperty("pg2lite.bench.fetchWaitMs", "5"));
    rest(stack).putConnector("bench-sink", k);
    rest(stack).awaitRunning("bench-sink", Duration.ofSeconds(90));
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

  /**
   * One workload's line: rows/s from its first statement to the replica holding its last row, CPU
   * per row, and the rate at which Postgres alone took the statements (to {@code written}): the
   * pipeline cannot be faster than that, whatever it does.
   */
  private static void report(String name, long rows, long t0, long cpu0, long written) {
    double seconds = (System.nanoTime() - t0) / 1e9;
    double cpuMicros = (cpu() - cpu0) / 1e3;
    System.out.printf("%-36s %10d %10.0f %12.1f %14.0f%n", name, rows, rows / seconds, cpuMicros / rows,
        rows / ((written - t0) / 1e9));
  }

  /** This JVM's CPU (the broker, the bench) and the worker's when it runs apart. */
  private static long cpu() {
    return BenchSettings.processCpuNanos() + (workerProcess != null ? workerProcess.cpuNanos() : 0);
  }

  /** Resets both tasks' latency stages; false when their MBeans are not there. */
  private static boolean resetStages() {
    try {
      for (String type : List.of("source", "sink")) {
        mbeans().invoke(taskMBean(type), "resetLatencyStages", null, null);
      }
      return true;
    } catch (JMException | IOException e) {
      System.out.printf("latency stages not available: %s%n", e);
      return false;
    }
  }

  private static String stages(String type) {
    try {
      return String.valueOf(mbeans().getAttribute(taskMBean(type), "LatencyStages"));
    } catch (JMException | IOException e) {
      return "not available: " + e;
    }
  }

  /** The pg2lite MBean of the bench's source or sink task. */
  private static ObjectName taskMBean(String type) throws JMException, IOException {
    String connector = type.equals("source") ? SOURCE : "bench-sink";
    for (ObjectName n : mbeans().queryNames(new ObjectName("io.pg2lite:type=" + type + ",*"), null)) {
      if (connector.equals(ObjectName.unquote(n.getKeyProperty("connector")))) {
        return n;
      }
    }
    throw new javax.management.InstanceNotFoundException("no io.pg2lite:type=" + type + " MBean of " + connector);
  }

  /** A metric of the source task's producer (in the worker's JVM), NaN when absent. */
  private static double producerMetric(String name) {
    return mbeanDouble("kafka.producer:type=producer-metrics,client-id=connector-producer-" + SOURCE + "-0", name);
  }

  /** A metric of Connect's source task (connector-task-metrics), NaN when absent. */
  private static double taskMetric(String name) {
    return mbeanDouble("kafka.connect:type=connector-task-metrics,connector=" + SOURCE + ",task=0", name);
  }

  private static double mbeanDouble(String objectName, String attribute) {
    try {
      Object v = mbeans().getAttribute(new ObjectName(objectName), attribute);
      return v instanceof Number n ? n.doubleValue() : Double.NaN;
    } catch (JMException | IOException e) {
      return Double.NaN;
    }
  }

  private static final String SOURCE = "bench-source";

}
