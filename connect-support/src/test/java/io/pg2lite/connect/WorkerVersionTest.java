package io.pg2lite.connect;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.apache.kafka.common.config.Config;
import org.apache.kafka.common.config.ConfigValue;
import org.junit.jupiter.api.Test;

class WorkerVersionTest {
  @Test
  void supportedWorkersPass() {
    for (String v : List.of("3.7.0", "3.7.2", "3.9.1", "4.0.2", "4.4.0", "4.1.0-SNAPSHOT", "10.0.0", "3.10")) {
      assertEquals(Optional.empty(), WorkerVersion.problem(v), v);
    }
  }

  @Test
  void anOlderWorkerIsRefusedNamingItsVersionAndTheMinimum() {
    String p = WorkerVersion.problem("3.6.2").orElseThrow();
    assertTrue(p.startsWith("pg2lite needs Kafka Connect 3.7 or newer (tested: 3.7.2, "), p);
    assertTrue(p.contains("this worker runs 3.6.2."), p);
    assertTrue(WorkerVersion.problem("2.8.2").orElseThrow().contains("this worker runs 2.8.2."));
    assertTrue(WorkerVersion.problem("3.6.0-SNAPSHOT").isPresent());
  }

  @Test
  void confluentPlatformVersionsAreReadAsTheKafkaTheyShip() {
    assertEquals(Optional.empty(), WorkerVersion.problem("7.7.1-ccs"), "CP 7.7 is Kafka 3.7");
    assertEquals(Optional.empty(), WorkerVersion.problem("8.0.0-ce"), "CP 8.0 is Kafka 4.0");
    String p = WorkerVersion.problem("7.6.0-ccs").orElseThrow();
    assertTrue(p.contains("this worker runs 7.6.0-ccs (Kafka 3.6)."), p);
  }

  /** A worker whose version cannot be read is not refused: we cannot tell it is too old. */
  @Test
  void anUnreadableVersionPasses() {
    for (String v : new String[] {"unknown", "", null, "trunk"}) {
      assertEquals(Optional.empty(), WorkerVersion.problem(v), String.valueOf(v));
    }
  }

  @Test
  void validateReportsTheRefusalUnderItsOwnName() {
    Config config = new Config(new ArrayList<>(List.of(new ConfigValue("topic"))));
    assertFalse(WorkerVersion.refuseIn(config, "3.9.1"));
    assertEquals(1, config.configValues().size());
    assertTrue(WorkerVersion.refuseIn(config, "3.6.2"));
    ConfigValue v = config.configValues().get(1);
    assertEquals(WorkerVersion.CONFIG_NAME, v.name());
    assertEquals("3.6.2", v.value());
    assertTrue(v.errorMessages().get(0).contains("this worker runs 3.6.2"), v.errorMessages().toString());
  }

  /** This test runs on the build's kafka-clients, a supported version: start() goes ahead. */
  @Test
  void theBuildsOwnKafkaIsSupported() {
    assertTrue(WorkerVersion.running().matches("4\\.\\d+\\.\\d+.*"), WorkerVersion.running());
    WorkerVersion.requireSupported();
  }
}
