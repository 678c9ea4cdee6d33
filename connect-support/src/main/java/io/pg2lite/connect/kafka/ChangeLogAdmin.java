package io.pg2lite.connect.kafka;

import io.pg2lite.protocol.message.ChangeLogHeaders;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.OptionalLong;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeoutException;
import org.apache.kafka.common.TopicPartition;

/**
 * A replica's view of the change-log topic through short-lived clients, the sink's and the
 * followers' (the counterpart of the source's {@code ChangeLogTopic}): its partition count for
 * {@code validate()} and a follower's start-up check, its start
 * and end offsets for the early too-far-behind check and the lag metric, and the lineage of its
 * newest records for choosing a snapshot to restore, all read through {@link ChangeLogPartition},
 * the facts both connectors read; and the replica's {@link ChangeLogView}. Only used when
 * {@code kafka.bootstrap.servers} is set; correctness never depends on it (gaps are caught from
 * the records' sequence numbers), so every read has a short timeout and callers treat a failure
 * as "unknown".
 *
 * <p>Each call opens and closes its own client: they are rare (a validation, a partition
 * assignment, a metric read at most every few seconds), and a long-lived client would hold
 * connections and threads for a task that mostly does not need them.
 */
public final class ChangeLogAdmin implements ChangeLogView {
  private final ChangeLogPartition log;
  private final String bootstrapServers;

  /** @param clientProps settings for the admin client ({@code kafka.*} without the prefix) */
  public ChangeLogAdmin(String bootstrapServers, Map<String, Object> clientProps) {
    this.log = new ChangeLogPartition(bootstrapServers, clientProps);
    this.bootstrapServers = bootstrapServers;
  }

  /**
   * The partition count of {@code topic}, or empty when it does not exist (yet: the source
   * creates it on its first start).
   *
   * @throws ExecutionException when Kafka answers with another error
   */
  public OptionalInt partitions(String topic) throws ExecutionException, InterruptedException, TimeoutException {
    return log.partitions(topic);
  }

  @Override
  public OptionalLong logStart(String topic, int partition) {
    try {
      return log.logStart(new TopicPartition(topic, partition));
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return OptionalLong.empty();
    }
  }

  @Override
  public OptionalLong logEnd(String topic, int partition) {
    try {
      return log.logEnd(new TopicPartition(topic, partition));
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return OptionalLong.empty();
    }
  }

  /**
   * The replica version (lineage header) of the newest committed record of {@code tp}: the
   * lineage a restored snapshot must share. Empty when the log holds no record, or its newest
   * record has no such header.
   */
  @Override
  public Optional<String> newestReplicaVersion(String topic, int partition) throws IOException {
    TopicPartition tp = new TopicPartition(topic, partition);
    try {
      return replicaVersion(tp);
    } catch (RuntimeException e) {
      throw new IOException("cannot read the tail of " + tp + ": " + e.getMessage(), e);
    }
  }

  /**
   * Whether {@code topic} exists with one partition: the start-up check that names a wrong topic or
   * {@code kafka.bootstrap.servers} at once instead of polling nothing forever.
   *
   * @return a problem to report, or empty when the topic is fine
   */
  public Optional<String> problem(String topic) throws InterruptedException {
    try {
      OptionalInt n = partitions(topic);
      if (n.isEmpty()) {
        return Optional.of("topic '" + topic + "' does not exist at " + bootstrapServers + " (the source connector "
            + "creates it on its first start)");
      }
      if (n.getAsInt() != 1) {
        return Optional.of("topic '" + topic + "' has " + n.getAsInt() + " partitions; a change log has one");
      }
      return Optional.empty();
    } catch (ExecutionException | TimeoutException e) {
      return Optional.of("cannot reach Kafka at " + bootstrapServers + " (kafka.bootstrap.servers and the kafka.* "
          + "security settings): " + (e.getCause() != null ? e.getCause() : e));
    }
  }

  @Override
  public String describe() {
    return "the change log at " + bootstrapServers;
  }

  private Optional<String> replicaVersion(TopicPartition tp) {
    return log.lastRecord(tp).map(r -> r.headers().lastHeader(ChangeLogHeaders.REPLICA_VERSION))
        .map(h -> new String(h.value(), StandardCharsets.UTF_8));
  }
}
