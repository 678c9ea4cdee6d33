package io.pg2lite.source.kafka;

import io.pg2lite.source.config.ConfigProblem;
import io.pg2lite.source.config.SourceConfig;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The live Kafka check of {@code validate()}: the broker is reachable, and the change-log topic has
 * exactly one partition, or does not exist yet and may be created.
 */
public final class ChangeLogProbe {
  private final SourceConfig config;

  public ChangeLogProbe(SourceConfig config) {
    this.config = config;
  }

  public List<ConfigProblem> problems() {
    Optional<Integer> partitions;
    try {
      partitions = new ChangeLogTopic(config.kafkaBootstrapServers, withTimeouts(config.kafkaClientProps))
          .partitions(config.topic);
    } catch (RuntimeException e) {
      return List.of(new ConfigProblem(SourceConfig.KAFKA_BOOTSTRAP_CONFIG, "cannot reach Kafka at "
          + config.kafkaBootstrapServers + ": " + e.getMessage()));
    }
    return topicProblems(config, partitions);
  }

  /** What is wrong with the topic, given its partition count (empty: it does not exist). */
  static List<ConfigProblem> topicProblems(SourceConfig config, Optional<Integer> partitions) {
    if (partitions.isPresent() && partitions.get() != 1) {
      return List.of(new ConfigProblem(SourceConfig.TOPIC_CONFIG, "topic " + config.topic + " has " + partitions.get()
          + " partitions; the change log needs exactly one"));
    }
    if (partitions.isEmpty() && !config.createTopics) {
      return List.of(new ConfigProblem(SourceConfig.TOPIC_CONFIG, "topic " + config.topic + " does not exist and "
          + SourceConfig.TOPIC_CREATE_CONFIG + " is false"));
    }
    return List.of();
  }

  private static Map<String, Object> withTimeouts(Map<String, Object> props) {
    Map<String, Object> m = new HashMap<>(props);
    m.putIfAbsent("default.api.timeout.ms", "15000");
    m.putIfAbsent("request.timeout.ms", "10000");
    return m;
  }
}
