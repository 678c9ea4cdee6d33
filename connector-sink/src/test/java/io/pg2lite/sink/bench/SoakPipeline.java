package io.pg2lite.sink.bench;

import io.pg2lite.testkit.ConnectorConfigs;
import io.pg2lite.testkit.connect.WorkerGroup;
import io.pg2lite.testkit.fuzz.Workload;
import io.pg2lite.testkit.fuzz.WorkloadRunner;
import io.pg2lite.testkit.kafka.BrokerCluster;
import io.pg2lite.testkit.postgres.PostgresServer;
import io.pg2lite.testkit.postgres.TestDatabase;
import io.pg2lite.testkit.sqlite.SqliteFiles;
import io.pg2lite.testkit.support.Await;
import io.pg2lite.testkit.workload.Ledger;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;

/**
 * The soak's pipeline, as production runs one: its own Postgres, a {@link BrokerCluster} of three
 * KRaft nodes (RF 3, {@code min.insync.replicas=2}), a {@link WorkerGroup} of Connect worker
 * processes, an exactly-once source on publication {@code fuzz_pub} (round 0 of the mixed
 * workload creates it; the ledger's {@code acct} and the probe's {@code probe} join it before the
 * source starts) and a sink keeping one replica. Owns all of it and stops it on close; the test
 * kit also kills the brokers and workers on a JVM exit (Ctrl-C).
 *
 * <p>Kafka timeouts: the source's producer keeps Kafka's transaction timeout (60 s) and the
 * source's producer and the sink's consumer wait 10 s for a request instead of 30 s, so that a
 * broker that hangs is given up on while it still hangs (ClusterFaultsIT measured 10–18 s to heal
 * with it, up to the whole pause with 30 s; operations.md, "A broker that hangs").
 */
final class SoakPipeline implements AutoCloseable {
  static final String TOPIC = "soak-log";
  static final String SOURCE = "soak-source";
  static final String SINK = "soak-sink";
  static final String PUBLICATION = "fuzz_pub";
  static final Duration WAIT = Duration.ofMinutes(3);
  static final Map<String, String> SOURCE_TIMEOUTS = Map.of("producer.override.transaction.timeout.ms", "60000",
      "producer.override.request.timeout.ms", "10000");
  static final Map<String, String> SINK_TIMEOUTS = Map.of("consumer.override.request.timeout.ms", "10000");

  final PostgresServer postgres;
  final TestDatabase db;
  final BrokerCluster cluster;
  final WorkerGroup workers;
  final Path replica;
  final TopicPartition log = new TopicPartition(TOPIC, 0);
  private final SqliteFiles files;

  private SoakPipeline(PostgresServer postgres, TestDatabase db, BrokerCluster cluster, WorkerGroup workers,
      SqliteFiles files) {
    this.postgres = postgres;
    this.db = db;
    this.cluster = cluster;
    this.workers = workers;
    this.files = files;
    this.replica = files.newFile("soak");
  }

  /**
   * Starts everything: the database with {@code round0}'s setup, the ledger and probe tables,
   * the cluster and {@code workerCount} workers of {@code -Xmx heap}, then the source and the sink
   * ({@code sourceSettings} and {@code sinkSettings} over the defaults), returning once both run.
   */
  static SoakPipeline start(Path work, String heap, int workerCount, Workload round0, Map<String, String> sourceSettings,
      Map<String, String> sinkSettings) throws Exception {
    PostgresServer postgres = PostgresServer.start();
    BrokerCluster cluster = null;
    WorkerGroup workers = null;
    try {
      TestDatabase db = postgres.newDatabase("soak");
      try (WorkloadRunner setup = new WorkloadRunner(db.jdbcUrl(), postgres.user(), postgres.password(), k -> { })) {
        setup.run(round0.setup());
        if (!setup.failures().isEmpty()) {
          throw new IllegalStateException("round 0's setup failed in Postgres: " + setup.failures());
        }
      }
      db.execute(Ledger.CREATE, LatencyProbe.CREATE, "ALTER PUBLICATION " + PUBLICATION + " ADD TABLE acct, probe");
      cluster = BrokerCluster.start(work.resolve("kafka"), 3, Map.of());
      cluster.createTopic(TOPIC, 1, Map.of());
      // The heap committed and touched whole from the start (-Xms = -Xmx, AlwaysPreTouch), as production workers
      // often run: the RSS then moves only with what is not heap (threads, buffers, SQLite's memory), and not with
      // how much heap G1 keeps committed, which the minute's full collection shrinks.
      workers = WorkerGroup.start(cluster.workerProperties("pg2lite-soak"), work.resolve("connect"), heap, workerCount,
          List.of("-Xms" + heap, "-XX:+AlwaysPreTouch"));
      SoakPipeline p = new SoakPipeline(postgres, db, cluster, workers, new SqliteFiles());
      p.startConnectors(sourceSettings, sinkSettings);
      return p;
    } catch (Exception | Error e) {
      if (workers != null) {
        workers.close();
      }
      if (cluster != null) {
        cluster.close();
      }
      postgres.close();
      throw e;
    }
  }

  private void startConnectors(Map<String, String> sourceSettings, Map<String, String> sinkSettings) {
    Map<String, String> source = ConnectorConfigs.source(postgres, cluster.bootstrapServers(), SOURCE, db.name(), "soak",
        TOPIC);
    source.put("publication.name", PUBLICATION);
    source.put("heartbeat.interval.ms", "1000");
    source.putAll(SOURCE_TIMEOUTS);
    source.putAll(sourceSettings);
    workers.rest().putConnector(SOURCE, source);
    workers.rest().awaitRunning(SOURCE, WAIT);
    Map<String, String> sink = ConnectorConfigs.sink(cluster.bootstrapServers(), SINK, TOPIC, replica);
    sink.putAll(SINK_TIMEOUTS);
    sink.putAll(sinkSettings);
    workers.rest().putConnector(SINK, sink);
    workers.rest().awaitRunning(SINK, WAIT);
  }

  /** A connection to the soak's database, with short connect and socket timeouts. */
  Connection connectPostgres() throws SQLException {
    Properties props = new Properties();
    props.setProperty("user", postgres.user());
    props.setProperty("password", postgres.password());
    props.setProperty("connectTimeout", "5");
    props.setProperty("socketTimeout", "60");
    return DriverManager.getConnection(db.jdbcUrl(), props);
  }

  /** The largest ledger id in the replica (0 while it holds none). */
  long replicaMaxId() {
    try (Connection c = SqliteFiles.open(replica); Statement s = c.createStatement();
        ResultSet rs = s.executeQuery("SELECT coalesce(max(id), 0) FROM acct")) {
      return rs.next() ? rs.getLong(1) : 0;
    } catch (SQLException e) {
      return 0;
    }
  }

  /**
   * A fault's time to heal: waits until the replica holds ledger id {@code id} or a later one (a
   * transaction committed after the fault) and returns the time from {@code faultNanos} until
   * then, as seen by looking every 50 ms.
   */
  Duration awaitHealed(long id, long faultNanos, Duration timeout) {
    Await.until("ledger id " + id + " (committed after the fault) in the replica", timeout,
        () -> replicaMaxId() >= id);
    return Duration.ofNanos(System.nanoTime() - faultNanos);
  }

  /**
   * Records between the change log's end and the offset the sink's consumer group
   * ({@code connect-soak-sink}) committed; -1 when Kafka does not answer within 10 s (a fault).
   * A caught-up sink shows 1 or 2: the transaction markers after the last record it applied.
   */
  long lag() {
    try {
      long end = cluster.admin().listOffsets(Map.of(log, OffsetSpec.latest())).partitionResult(log)
          .get(10, TimeUnit.SECONDS).offset();
      OffsetAndMetadata committed = cluster.admin().listConsumerGroupOffsets("connect-" + SINK)
          .partitionsToOffsetAndMetadata().get(10, TimeUnit.SECONDS).get(log);
      return committed == null ? end : Math.max(0, end - committed.offset());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return -1;
    } catch (Exception e) {
      return -1;
    }
  }

  @Override
  public void close() throws Exception {
    try {
      workers.close();
      cluster.close();
    } finally {
      postgres.close();
      files.close();
    }
  }
}
