package io.pg2lite.source.debezium;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pg2lite.source.config.SourceConfig;
import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;

class DebeziumPropertiesTest {
  private static Map<String, String> props() {
    Map<String, String> m = new HashMap<>(Map.of("database.hostname", "db", "database.dbname", "app",
        "database.user", "u", "topic", "t", "kafka.bootstrap.servers", "k:1", "slot.name", "s1"));
    return m;
  }

  /** Debezium builds jdbc:postgresql://hostname:port/db: the pair must give the source's own host list. */
  @Test
  void debeziumConnectsToTheSameHostList() {
    Map<String, String> m = props();
    m.put("database.hostname", "pg1,pg2:5433,pg3");
    m.put("database.port", "5440");
    Map<String, String> p = DebeziumProperties.of(new SourceConfig(m), Map.of("targetServerType", "primary"), "x");
    assertEquals("pg1:5440,pg2:5433,pg3", p.get("database.hostname"));
    assertEquals("5440", p.get("database.port"));
    assertEquals("primary", p.get("database.targetServerType"));
    String url = "jdbc:postgresql://" + p.get("database.hostname") + ":" + p.get("database.port") + "/app";
    assertTrue(new SourceConfig(m).jdbcUrl().startsWith(url + "?"), url);
    m.put("database.hostname", "db");
    p = DebeziumProperties.of(new SourceConfig(m), Map.of(), "x");
    assertEquals("db", p.get("database.hostname"));
    assertEquals("5440", p.get("database.port"));
  }

  @Test
  void fixedSettingsCannotBeOverridden() {
    Map<String, String> m = props();
    m.put("debezium.decimal.handling.mode", "double");
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
        () -> DebeziumProperties.of(new SourceConfig(m), Map.of(), "x"));
    assertTrue(e.getMessage().contains("debezium.decimal.handling.mode=double"), e.getMessage());
  }

  @Test
  void settingsThatWouldBypassTheTypeMappingAreRefused() {
    Map<String, String> m = props();
    m.put("debezium.field.name.adjustment.mode", "avro");
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
        () -> DebeziumProperties.of(new SourceConfig(m), Map.of(), "x"));
    assertTrue(e.getMessage().contains("debezium.field.name.adjustment.mode=avro"), e.getMessage());
    Map<String, String> c = props();
    c.put("debezium.converters", "ts");
    e = assertThrows(IllegalArgumentException.class, () -> DebeziumProperties.of(new SourceConfig(c), Map.of(), "x"));
    assertTrue(e.getMessage().contains("debezium.converters is not supported"), e.getMessage());
  }

  @Test
  void tuningSettingsPassThrough() {
    Map<String, String> m = props();
    m.put("debezium.max.batch.size", "1000");
    Map<String, String> p = DebeziumProperties.of(new SourceConfig(m), Map.of(), "x");
    assertEquals("1000", p.get("max.batch.size"));
    assertEquals("pgoutput", p.get("plugin.name"));
    assertEquals("s1", p.get("slot.name"));
    assertTrue(p.get("heartbeat.action.query").contains("pg_logical_emit_message(true"));
  }

  /** Debezium gets the TLS properties every connection of the source uses, and no others. */
  @Test
  void tlsPropertiesAreDebeziumsDatabaseSettingsAndCannotBeOverridden() {
    Map<String, String> p = DebeziumProperties.of(new SourceConfig(props()),
        Map.of("sslmode", "verify-full", "sslrootcert", "/tls/root.crt"), "x");
    assertEquals("verify-full", p.get("database.sslmode"));
    assertEquals("/tls/root.crt", p.get("database.sslrootcert"));
    Map<String, String> m = props();
    m.put("debezium.database.sslrootcert", "/elsewhere.crt");
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
        () -> DebeziumProperties.of(new SourceConfig(m), Map.of(), "x"));
    assertTrue(e.getMessage().contains("debezium.database.sslrootcert is not supported"), e.getMessage());
  }
}
