package io.pg2lite.sink.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pg2lite.testkit.TestStack;
import io.pg2lite.testkit.TestStackExtension;
import io.pg2lite.testkit.connect.WorkerProcess;
import io.pg2lite.testkit.postgres.TestDatabase;
import io.pg2lite.testkit.sqlite.SqliteFiles;
import io.pg2lite.testkit.support.Await;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The example Prometheus JMX exporter config ({@code etc/prometheus-jmx-exporter.yml}) in a real
 * worker: the exporter's agent (the version the config names) runs in a Connect worker process
 * with both connectors, and its scrape holds the metric names operations.md documents, with the
 * values the replica shows.
 */
@ExtendWith(TestStackExtension.class)
class PrometheusExporterIT {
  private static final Duration WAIT = Duration.ofSeconds(120);

  @Test
  void theExampleConfigExportsBothConnectorsMetrics(TestStack stack) throws Exception {
    String name = "prom";
    Path agent = Path.of(System.getProperty("pg2lite.jmxExporter.jar", "target/jmx-exporter/jmx_prometheus_javaagent.jar"));
    Path config = Path.of(System.getProperty("pg2lite.etc", "../etc"), "prometheus-jmx-exporter.yml");
    assertTrue(Files.isRegularFile(agent) && Files.isRegularFile(config), agent + ", " + config);
    int port;
    try (ServerSocket s = new ServerSocket(0)) {
      port = s.getLocalPort();
    }
    Path work = Files.createTempDirectory("pg2lite-" + name);
    String topic = stack.kafka().uniqueTopicName(name);
    try (WorkerProcess worker = WorkerProcess.start(stack.kafka().bootstrapServers(), "512m", work, true, null,
            Map.of(), List.of("-javaagent:" + agent.toAbsolutePath() + "=127.0.0.1:" + port + ":" + config.toAbsolutePath()));
        TestDatabase db = stack.postgres().newDatabase(name); SqliteFiles files = new SqliteFiles()) {
      db.execute("CREATE TABLE t (id int PRIMARY KEY)", "CREATE PUBLICATION " + name + "_pub FOR TABLE t");
      Path replica = files.newFile("r");
      Pipeline.startConnectors(stack, worker.rest(), name, db, topic, replica, true, Map.of(), WAIT);
      db.execute("INSERT INTO t SELECT generate_series(1, 50)");
      Pipeline.awaitSame(db, replica, "SELECT id FROM t ORDER BY id", "SELECT id FROM t ORDER BY id", WAIT);

      HttpClient http = HttpClient.newHttpClient();
      HttpRequest scrape = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/metrics")).build();
      String[] text = {""};
      String sink = "connector=\"" + name + "-sink\"";
      String source = "connector=\"" + name + "-source\",slot=\"" + name + "_slot\"";
      Await.until("the scrape showing the replica's offset", WAIT, () -> {
        try {
          text[0] = http.send(scrape, HttpResponse.BodyHandlers.ofString()).body();
        } catch (java.io.IOException e) {
          return false; // the agent's server not up yet
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
          return false;
        }
        return text[0].contains("pg2lite_sink_replica_offset{" + sink + "}")
            && value(text[0], "pg2lite_sink_replica_offset{" + sink + "}") > 0;
      });
      for (String gauge : List.of("pg2lite_sink_lag_records", "pg2lite_sink_millis_behind_source",
          "pg2lite_sink_commit_latency_p99_millis")) {
        assertTrue(value(text[0], gauge + "{" + sink + "}") >= -1, gauge + " missing:\n" + text[0]);
      }
      assertTrue(value(text[0], "pg2lite_sink_records_total{" + sink + "}") >= 52, text[0]);
      assertTrue(text[0].contains("# TYPE pg2lite_sink_records_total counter"), text[0]);
      assertEquals(0, value(text[0], "pg2lite_sink_hanging_transactions{" + sink + "}"), "no hanging transaction");
      assertTrue(text[0].contains("# TYPE pg2lite_sink_hanging_transactions_aborted_total counter"), text[0]);
      assertTrue(value(text[0], "pg2lite_source_transactions_total{" + source + "}") >= 1, text[0]);
      assertTrue(value(text[0], "pg2lite_source_slot_lag_bytes{" + source + "}") >= -1, text[0]);
      assertTrue(value(text[0], "pg2lite_source_backfill_rows_remaining{" + source + "}") >= 0, text[0]);
      // Connect's own task metrics come out beside them, named by the same config.
      assertTrue(text[0].contains("kafka_connect_sink_task_metrics_sink_record_read_total{connector=\"" + name
          + "-sink\",task=\"0\"}"), text[0]);
      String watermarkOffset = Pipeline.replica(replica, "SELECT kafka_offset FROM \"_pg2lite.state\"").get(0).get(0);
      assertTrue(value(text[0], "pg2lite_sink_replica_offset{" + sink + "}") <= Long.parseLong(watermarkOffset),
          "the scrape is not ahead of the replica");
      assertEquals(-1, text[0].indexOf("pg2lite_source_slot_status"), "text attributes are not exported as numbers");
    }
  }

  /** The sample {@code series}'s value in Prometheus text format; fails when it is missing. */
  private static double value(String text, String series) {
    Matcher m = Pattern.compile("(?m)^" + Pattern.quote(series) + " (\\S+)$").matcher(text);
    if (!m.find()) {
      throw new AssertionError(series + " is not in the scrape:\n" + text);
    }
    return Double.parseDouble(m.group(1));
  }
}
