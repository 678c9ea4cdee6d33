package io.pg2lite.source.kafka;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.pg2lite.source.config.ConfigProblem;
import io.pg2lite.source.config.SourceConfig;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class ChangeLogProbeTest {
  private static SourceConfig config(boolean create) {
    return new SourceConfig(new HashMap<>(Map.of("database.hostname", "db", "database.dbname", "app",
        "database.user", "u", "topic", "changes", "kafka.bootstrap.servers", "k:9092",
        SourceConfig.TOPIC_CREATE_CONFIG, String.valueOf(create))));
  }

  @Test
  void theTopicNeedsExactlyOnePartitionOrMayBeCreated() {
    assertEquals(List.of(), ChangeLogProbe.topicProblems(config(true), Optional.of(1)));
    assertEquals(List.of(), ChangeLogProbe.topicProblems(config(true), Optional.empty()));
    assertEquals(List.of(new ConfigProblem(SourceConfig.TOPIC_CONFIG,
        "topic changes has 3 partitions; the change log needs exactly one")),
        ChangeLogProbe.topicProblems(config(true), Optional.of(3)));
    assertEquals(List.of(new ConfigProblem(SourceConfig.TOPIC_CONFIG,
        "topic changes does not exist and topic.create is false")),
        ChangeLogProbe.topicProblems(config(false), Optional.empty()));
  }
}
