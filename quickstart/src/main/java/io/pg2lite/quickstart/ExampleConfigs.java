package io.pg2lite.quickstart;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.pg2lite.testkit.TestStack;
import io.pg2lite.testkit.postgres.TestDatabase;
import java.io.IOException;
import java.io.Reader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Properties;

/**
 * The example configs in the project's {@code etc/}: the same files the docs show and the plugin
 * archives ship, read unchanged, so the quickstart and the docs cannot drift apart. Connection
 * values in them are {@code ${env:NAME}} references the worker resolves from its environment.
 */
final class ExampleConfigs {
  static final String SOURCE_FILE = "pg2lite-source.json";
  static final String SINK_FILE = "pg2lite-sink.json";
  static final String WORKER_FILE = "connect-distributed-eos.properties";

  /** A connector as the REST API's {@code POST /connectors} takes it. */
  record Connector(String name, Map<String, String> config) {}

  private final Path dir;

  ExampleConfigs(Path dir) {
    this.dir = dir;
  }

  Path dir() {
    return dir;
  }

  Connector connector(String file) throws IOException {
    JsonNode root = new ObjectMapper().readTree(dir.resolve(file).toFile());
    Map<String, String> config = new LinkedHashMap<>();
    root.path("config").fields().forEachRemaining(e -> config.put(e.getKey(), e.getValue().asText()));
    if (!root.path("name").isTextual() || config.isEmpty()) {
      throw new IOException(dir.resolve(file) + " is not a connector definition ({\"name\": ..., \"config\": {...}})");
    }
    return new Connector(root.path("name").asText(), config);
  }

  /**
   * The worker's environment, where the example configs' {@code ${env:PG2LITE_*}} values resolve:
   * the stack's Postgres (database {@code db}) and broker, and replicas under {@code replicaDir}.
   */
  static Map<String, String> environment(TestStack stack, TestDatabase db, Path replicaDir) {
    return Map.of(
        "PG2LITE_PG_HOST", "localhost",
        "PG2LITE_PG_PORT", String.valueOf(db.server().port()),
        "PG2LITE_PG_DATABASE", db.name(),
        "PG2LITE_PG_USER", db.server().user(),
        "PG2LITE_PG_PASSWORD", db.server().password(),
        "PG2LITE_BOOTSTRAP_SERVERS", stack.kafka().bootstrapServers(),
        "PG2LITE_REPLICA_DIR", replicaDir.toString());
  }

  Properties worker() throws IOException {
    Properties p = new Properties();
    try (Reader r = Files.newBufferedReader(dir.resolve(WORKER_FILE))) {
      p.load(r);
    }
    return p;
  }
}
