package io.pg2lite.source.config;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.kafka.common.config.ConfigException;
import org.junit.jupiter.api.Test;

class PostgresHostsTest {
  @Test
  void oneHostTakesTheDefaultPort() {
    PostgresHosts h = PostgresHosts.parse("db.example", 5433);
    assertEquals(List.of(new PostgresHosts.Server("db.example", 5433)), h.servers());
    assertFalse(h.isList());
  }

  @Test
  void aListKeepsItsOrderAndEachEntrysPort() {
    PostgresHosts h = PostgresHosts.parse("primary.example, standby.example:5433,[::1]:6000,10.0.0.7", 5432);
    assertEquals("primary.example:5432,standby.example:5433,[::1]:6000,10.0.0.7:5432", h.urlPart());
    assertTrue(h.isList());
  }

  @Test
  void badEntriesAreNamed() {
    assertMessage("a,,b", "has an empty entry");
    assertMessage("a,b:0", "entry 'b:0' has port 0, outside 1-65535");
    assertMessage("a,b:123456", "entry 'b:123456' has port 123456");
    assertMessage("a,b c", "entry 'b c' is not a host or host:port");
    assertMessage("a:5432,a", "names a:5432 twice");
  }

  @Test
  void theSourceUrlListsEveryServer() {
    Map<String, String> m = new HashMap<>();
    m.put("database.hostname", "pg1,pg2:5433");
    m.put("database.port", "5434");
    m.put("database.dbname", "app");
    m.put("database.user", "u");
    m.put("topic", "changes");
    m.put("kafka.bootstrap.servers", "k:9092");
    SourceConfig c = new SourceConfig(m);
    assertTrue(c.jdbcUrl().startsWith("jdbc:postgresql://pg1:5434,pg2:5433/app?"), c.jdbcUrl());
    assertTrue(c.slotFailover, "failover slots by default");
    m.put("database.hostname", "pg1,");
    ConfigException e = assertThrows(ConfigException.class, () -> new SourceConfig(m));
    assertTrue(e.getMessage().contains("database.hostname"), e.getMessage());
  }

  private static void assertMessage(String value, String expected) {
    ConfigException e = assertThrows(ConfigException.class, () -> PostgresHosts.parse(value, 5432));
    assertTrue(e.getMessage().contains(expected) && e.getMessage().contains("database.hostname"), e.getMessage());
  }
}
