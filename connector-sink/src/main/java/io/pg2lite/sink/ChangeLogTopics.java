package io.pg2lite.sink;

import java.util.Optional;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.connect.errors.ConnectException;

/**
 * The change log a sink follows, from Connect's {@code topics} setting: one topic, whose one
 * partition (0) is the log. Read at start, before Connect assigns anything, because the replica is
 * restored and opened then (ADR 0022); the assignment is checked against it.
 */
final class ChangeLogTopics {
  private ChangeLogTopics() {}

  /**
   * The partition {@code topics} names; empty when it is not set ({@code topics.regex}).
   *
   * @throws ConnectException when it names more than one topic
   */
  static Optional<TopicPartition> of(String topics) {
    if (topics == null || topics.isBlank()) {
      return Optional.empty();
    }
    String[] names = topics.split(",");
    if (names.length != 1) {
      throw new ConnectException("'topics' names " + names.length + " topics (" + topics + "); a replica follows "
          + "one change log: name the source's topic only");
    }
    return Optional.of(new TopicPartition(names[0].trim(), 0));
  }
}
