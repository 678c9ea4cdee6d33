package io.pg2lite.source.config;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.apache.kafka.common.config.Config;
import org.apache.kafka.common.config.ConfigValue;
import org.junit.jupiter.api.Test;

class SourceValidatorTest {
  @Test
  void problemsGoToTheirFieldsAndFieldErrorsStopTheLiveChecks() {
    ConfigValue topic = new ConfigValue(SourceConfig.TOPIC_CONFIG);
    ConfigValue host = new ConfigValue(SourceConfig.HOST_CONFIG);
    SourceValidator v = new SourceValidator(new Config(List.of(topic, host)));
    assertTrue(v.fieldsValid());
    v.report(List.of(new ConfigProblem(SourceConfig.TOPIC_CONFIG, "3 partitions"),
        new ConfigProblem("no.such.field", "dropped")));
    assertEquals(List.of("3 partitions"), topic.errorMessages());
    assertEquals(List.of(), host.errorMessages());
    assertFalse(v.fieldsValid());
  }
}
