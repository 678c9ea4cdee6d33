package io.pg2lite.quickstart;

import static org.junit.jupiter.api.Assertions.fail;

import io.pg2lite.testkit.connect.WorkerProcess;
import io.pg2lite.testkit.support.Await;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.testcontainers.DockerClientFactory;
import org.testcontainers.kafka.KafkaContainer;
import org.testcontainers.postgresql.PostgreSQLContainer;

/**
 * The end-to-end pipeline against containers, for users who have Docker ({@code mvn -B verify
 * -Ptestcontainers}): Postgres 17 and Apache Kafka in containers, the Connect worker in its own
 * process with the plugin archives on its {@code plugin.path}, connectors from {@code etc/}. Without
 * a Docker engine it fails saying so: it never passes without having run.
 */
class PipelineDockerIT {
  private static final Path PLUGINS = Path.of(System.getProperty("pg2lite.pluginPath", "target/plugins"));
  private static final Path ETC = Path.of(System.getProperty("pg2lite.etc", "../etc"));
  private static final String ROWS = "SELECT id, name, qty FROM item ORDER BY id";

  @BeforeAll
  static void dockerIsRequired() {
    boolean available;
    try {
      available = DockerClientFactory.instance().isDockerAvailable();
    } catch (RuntimeException e) {
      available = false;
    }
    if (!available) {
      fail("Docker is not available on this machine. The testcontainers profile runs Postgres and Kafka in "
          + "containers and needs a Docker engine; without one, run the default build (mvn -B verify), which "
          + "starts the same servers inside the test JVM.");
    }
  }

  @Test
  void replicatesThroughContainers() throws Exception {
    try (PostgreSQLContainer pg = new PostgreSQLContainer("postgres:17").withCommand("postgres", "-c",
            "wal_level=logical");
        KafkaContainer kafka = new KafkaContainer("apache/kafka:4.1.0")) {
      pg.start();
      kafka.start();
      try (Connection c = DriverManager.getConnection(pg.getJdbcUrl(), pg.getUsername(), pg.getPassword());
          Statement s = c.createStatement()) {
        s.execute("CREATE TABLE item (id int PRIMARY KEY, name text, qty int)");
        s.execute("INSERT INTO item SELECT g, 'item ' || g, g FROM generate_series(1, 1000) g");
        s.execute("CREATE PUBLICATION pg2lite FOR TABLE item");
      }
      Path work = Files.createTempDirectory("pg2lite-docker-it");
      Path replicas = Files.createDirectories(work.resolve("replicas"));
      Map<String, String> env = Map.of("PG2LITE_PG_HOST", pg.getHost(),
          "PG2LITE_PG_PORT", String.valueOf(pg.getMappedPort(5432)), "PG2LITE_PG_DATABASE", pg.getDatabaseName(),
          "PG2LITE_PG_USER", pg.getUsername(), "PG2LITE_PG_PASSWORD", pg.getPassword(),
          "PG2LITE_BOOTSTRAP_SERVERS", kafka.getBootstrapServers(), "PG2LITE_REPLICA_DIR", replicas.toString());
      ExampleConfigs configs = new ExampleConfigs(ETC.toAbsolutePath());
      try (WorkerProcess worker = WorkerProcess.start(configs.worker(), Map.of("bootstrap.servers",
          kafka.getBootstrapServers(), "plugin.path", PLUGINS.toAbsolutePath().toString(),
          "config.storage.replication.factor", "1"), env, "768m", work)) {
        for (String file : List.of(ExampleConfigs.SOURCE_FILE, ExampleConfigs.SINK_FILE)) {
          ExampleConfigs.Connector connector = configs.connector(file);
          worker.rest().putConnector(connector.name(), connector.config());
          worker.rest().awaitRunning(connector.name(), Duration.ofMinutes(2));
        }
        try (Connection c = DriverManager.getConnection(pg.getJdbcUrl(), pg.getUsername(), pg.getPassword());
            Statement s = c.createStatement()) {
          s.execute("UPDATE item SET qty = qty + 1 WHERE id % 3 = 0");
          s.execute("DELETE FROM item WHERE id % 7 = 0");
        }
        Path replica = replicas.resolve("replica.db");
        Await.until("the replica to equal Postgres", Duration.ofMinutes(2), () -> {
          try (Connection a = DriverManager.getConnection(pg.getJdbcUrl(), pg.getUsername(), pg.getPassword());
              Connection b = DriverManager.getConnection("jdbc:sqlite:" + replica)) {
            return Objects.equals(rows(a), rows(b));
          } catch (Exception e) {
            return false;
          }
        });
      }
    }
  }

  private static List<List<String>> rows(Connection c) throws Exception {
    List<List<String>> out = new ArrayList<>();
    try (Statement s = c.createStatement(); ResultSet rs = s.executeQuery(ROWS)) {
      while (rs.next()) {
        out.add(List.of(rs.getString(1), String.valueOf(rs.getString(2)), String.valueOf(rs.getString(3))));
      }
    }
    return out;
  }
}
