package io.pg2lite.source.kafka;

import io.pg2lite.source.config.ConfigProblem;
import io.pg2lite.source.config.SourceConfig;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The live Kafka check of {@code validate()}: the broker is reachable, and the change-log topic has
 * exactly one partition, or does not exist yet and may be created.
 */
public final class ChangeLogProbe {
  private static final Logger LOG = LoggerFactory.getLogger(ChangeLogProbe.class);
  private final SourceConfig config;

  public ChangeLogProbe(SourceConfig config) {
    this.config = config;
  }

  public List<ConfigProblem> problems() {
    Optional<Integer> partitions;
    ChangeLogTopic topic = new ChangeLogTopic(config.kafkaBootstrapServers, withTimeouts(config.kafkaClientProps));
    try {
      partitions = topic.partitions(config.topic);
    } catch (RuntimeException e) {
      return List.of(new ConfigProblem(SourceConfig.KAFKA_BOOTSTRAP_CONFIG, "cannot reach Kafka at "
          + config.kafkaBootstrapServers + ": " + e.getMessage()));
    }
    warnOnRecordLimits(topic);
    return topicProblems(config, partitions);
  }

  /**
   * Connect's validation has errors only, and disagreeing limits break nothing (records are cut to
   * the smaller), so a disagreement is a warning in the worker's log, not a refused config. The
   * task warns again on every start.
   */
  private void warnOnRecordLimits(ChangeLogTopic topic) {
    try {
      new RecordLimit(topic.maxMessageBytes(config.topic), config.producerMaxRequestSize).disagreement(config.topic)
          .ifPresent(w -> LOG.warn("Connector {}: {}", config.connectorName, w));
    } catch (RuntimeException e) {
      LOG.debug("Cannot read the record limits of topic {}", config.topic, e);
    }
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
