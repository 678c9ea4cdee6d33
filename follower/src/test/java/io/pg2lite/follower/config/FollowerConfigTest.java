package io.pg2lite.follower.config;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pg2lite.replica.verify.MismatchPolicy;
import io.pg2lite.testkit.docs.ConfigReference;
import java.nio.file.Path;
import java.util.Map;
import org.apache.kafka.common.config.ConfigException;
import org.junit.jupiter.api.Test;

class FollowerConfigTest {
  private static final Map<String, String> MINIMAL = Map.of("topic", "log", "kafka.bootstrap.servers", "k:9092",
      "replica.path", "/data/r.db");

  @Test
  void defaultsNameTheFollowerAfterItsHostAndFileAndGiveItAGroupOfItsOwn() {
    FollowerConfig c = new FollowerConfig(MINIMAL);
    assertTrue(c.name.startsWith("follower-") && c.name.endsWith("-r.db"), c.name);
    assertEquals("pg2lite-follower-" + c.name, c.groupId);
    assertEquals(0, c.replica.snapshotIntervalMs, "a follower takes no snapshots unless asked");
    assertEquals("WAL", c.replica.journalMode);
  }

  @Test
  void kafkaKeysGoToTheClientsAndTheOnesTheFollowerSetsAreRefused() {
    Map<String, String> p = new java.util.HashMap<>(MINIMAL);
    p.put("kafka.security.protocol", "SASL_SSL");
    assertEquals("SASL_SSL", new FollowerConfig(p).kafkaClientProps.get("security.protocol"));
    p.put("kafka.isolation.level", "read_uncommitted");
    ConfigException e = assertThrows(ConfigException.class, () -> new FollowerConfig(p));
    assertTrue(e.getMessage().contains("kafka.isolation.level"), e.getMessage());
  }

  @Test
  void verifyMismatchIsLogOrFailAsForTheSink() {
    assertEquals(MismatchPolicy.LOG, new FollowerConfig(MINIMAL).verifyMismatch);
    Map<String, String> p = new java.util.HashMap<>(MINIMAL);
    p.put("verify.mismatch", "fail");
    assertEquals(MismatchPolicy.FAIL, new FollowerConfig(p).verifyMismatch);
    p.put("verify.mismatch", "stop");
    ConfigException e = assertThrows(ConfigException.class, () -> new FollowerConfig(p));
    assertTrue(e.getMessage().contains("verify.mismatch"), e.getMessage());
  }

  @Test
  void aMissingRequiredSettingIsNamed() {
    ConfigException e = assertThrows(ConfigException.class, () -> new FollowerConfig(Map.of("topic", "log",
        "replica.path", "/r.db")));
    assertTrue(e.getMessage().contains("kafka.bootstrap.servers"), e.getMessage());
  }

  @Test
  void theConfigReferenceInDocsIsCurrent() throws Exception {
    String generated = ConfigReference.markdown("Follower configuration",
        "Settings of the replica follower (`pg2lite-follower` and `io.pg2lite.follower.Follower`): a properties "
            + "file and/or `key=value` arguments. The replica, snapshot, lineage and retry settings are the sink "
            + "connector's, with the same meaning. Guide: [follower.md](follower.md).",
        FollowerConfig.configDef());
    assertNull(ConfigReference.checkOrUpdate(Path.of("../docs/config-follower.md"), generated));
  }
}
