package io.pg2lite.source.config;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pg2lite.testkit.docs.ConfigReference;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import org.apache.kafka.common.config.ConfigException;
import org.junit.jupiter.api.Test;

class SourceConfigTest {
  private static Map<String, String> minimal() {
    Map<String, String> m = new HashMap<>();
    m.put("database.hostname", "db");
    m.put("database.dbname", "app");
    m.put("database.user", "u");
    m.put("topic", "changes");
    m.put("kafka.bootstrap.servers", "k:9092");
    return m;
  }

  @Test
  void parsesOnceIntoTypedFields() {
    Map<String, String> m = minimal();
    m.put("kafka.security.protocol", "SSL");
    m.put("debezium.max.batch.size", "100");
    SourceConfig c = new SourceConfig(m);
    assertEquals(5432, c.port);
    assertEquals("changes.heartbeat", c.heartbeatTopic);
    assertEquals(Map.of("security.protocol", "SSL"), c.kafkaClientProps);
    assertEquals(Map.of("max.batch.size", "100"), c.debeziumOverrides);
    assertTrue(!c.requirePrimaryKey);
  }

  @Test
  void rejectsBadValuesNamingTheKey() {
    Map<String, String> m = minimal();
    m.put("slot.name", "Bad-Name");
    ConfigException e = assertThrows(ConfigException.class, () -> new SourceConfig(m));
    assertTrue(e.getMessage().contains("slot.name"), e.getMessage());
    m.remove("slot.name");
    m.remove("topic");
    e = assertThrows(ConfigException.class, () -> new SourceConfig(m));
    assertTrue(e.getMessage().contains("topic"), e.getMessage());
  }

  @Test
  void theConfigReferenceInDocsIsCurrent() throws Exception {
    String generated = ConfigReference.markdown("Source connector configuration",
        "Keys of `io.pg2lite.source.Pg2liteSourceConnector`. Besides these: `debezium.*` keys are passed to "
            + "Debezium's Postgres connector (expert tuning; the settings pg2lite depends on are refused), and "
            + "`kafka.*` keys configure the source's own admin and consumer clients.",
        SourceConfig.configDef());
    assertNull(ConfigReference.checkOrUpdate(Path.of("../docs/config-source.md"), generated));
  }
}
