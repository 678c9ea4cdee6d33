package io.pg2lite.sink.config;

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

class SinkConfigTest {
  @Test
  void defaultsAndValidation() {
    SinkConfig c = new SinkConfig(Map.of("replica.path", "/tmp/r.db"));
    assertEquals("WAL", c.replica.journalMode);
    assertEquals("NORMAL", c.replica.synchronous);
    assertEquals(1000, c.replica.maxTransactionsPerCommit);
    ConfigException e = assertThrows(ConfigException.class,
        () -> new SinkConfig(Map.of("replica.path", "/tmp/r.db", "replica.journal.mode", "MEMORY")));
    assertTrue(e.getMessage().contains("replica.journal.mode"), e.getMessage());
    e = assertThrows(ConfigException.class, () -> new SinkConfig(Map.of()));
    assertTrue(e.getMessage().contains("replica.path"), e.getMessage());
  }

  @Test
  void verifyMismatchIsLogOrFail() {
    assertEquals(MismatchPolicy.LOG, new SinkConfig(Map.of("replica.path", "/tmp/r.db")).verifyMismatch,
        "a mismatch is logged unless asked otherwise");
    assertEquals(MismatchPolicy.FAIL, new SinkConfig(Map.of("replica.path", "/tmp/r.db", "verify.mismatch", "fail"))
        .verifyMismatch);
    ConfigException e = assertThrows(ConfigException.class,
        () -> new SinkConfig(Map.of("replica.path", "/tmp/r.db", "verify.mismatch", "stop")));
    assertTrue(e.getMessage().contains("verify.mismatch") && e.getMessage().contains("log, fail"), e.getMessage());
    assertTrue(SinkConfig.configDef().validate(Map.of("replica.path", "/tmp/r.db", "verify.mismatch", "ignore"))
        .stream().filter(v -> v.name().equals("verify.mismatch")).allMatch(v -> !v.errorMessages().isEmpty()),
        "Connect's validate attaches the error to the field");
  }

  @Test
  void theConfigReferenceInDocsIsCurrent() throws Exception {
    String generated = ConfigReference.markdown("Sink connector configuration",
        "Keys of `io.pg2lite.sink.Pg2liteSinkConnector`, besides Connect's own (`topics`, converters: "
            + "`value.converter` must be `org.apache.kafka.connect.converters.ByteArrayConverter`).",
        SinkConfig.configDef());
    assertNull(ConfigReference.checkOrUpdate(Path.of("../docs/config-sink.md"), generated));
  }
}
