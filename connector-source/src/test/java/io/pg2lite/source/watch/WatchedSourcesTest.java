package io.pg2lite.source.watch;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pg2lite.connect.kafka.hanging.AdminTransactionLooks;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** What the worker's watch reads from the worker's config and the cluster's connector configs. */
class WatchedSourcesTest {
  private static final WorkerSettings WORKER = WorkerSettings.of(Map.of("group.id", "g",
      "bootstrap.servers", "b:9092", "offset.storage.topic", "g-offsets", "security.protocol", "SASL_SSL",
      "admin.security.protocol", "SSL", "key.converter", "x", WorkerSettings.ABORT_CONFIG, "true"));
  private final WatchedSources sources = new WatchedSources(null, WORKER);

  @Test
  void theWorkerSettingsAreItsAdminClientsWithTheAdminOverridesAndTheAbortSetting() {
    assertEquals(Map.of("bootstrap.servers", "b:9092", "security.protocol", "SSL"), WORKER.adminProps());
    assertEquals("b:9092", WORKER.bootstrapServers());
    assertTrue(WORKER.abort());
    assertEquals(false, WorkerSettings.of(Map.of()).abort(), "off by default");
  }

  @Test
  void aSourceIsWatchedOnItsChangeLogAndItsOffsetsTopicOthersNot() {
    Map<String, Map<String, String>> configs = Map.of(
        "a", Map.of("connector.class", "io.pg2lite.source.Pg2liteSourceConnector", "topic", "log-a"),
        "b", Map.of("connector.class", "Pg2liteSource", "topic", "log-b", "offsets.storage.topic", "b-offsets"),
        "sink", Map.of("connector.class", "io.pg2lite.sink.Pg2liteSinkConnector", "topics", "log-a"),
        "other", Map.of("connector.class", "FileStreamSource", "topic", "x"));
    assertEquals(new AdminTransactionLooks.Watched(Set.of("log-a", "g-offsets", "log-b", "b-offsets"),
        Set.of("g-a-0", "g-b-0")), sources.of(configs));
  }

  @Test
  void aTopicGivenAsAConfigVariableIsLeftOut() {
    assertEquals(new AdminTransactionLooks.Watched(Set.of("g-offsets"), Set.of("g-a-0")), sources.of(Map.of("a",
        Map.of("connector.class", "Pg2liteSourceConnector", "topic", "${env:TOPIC}"))));
  }
}
