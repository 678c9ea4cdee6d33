package io.pg2lite.sink.kafka;

import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.OptionalInt;
import java.util.OptionalLong;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.UnknownTopicOrPartitionException;

/**
 * The sink's own view of the change-log topic through an admin client (the sink's counterpart of
 * the source's {@code ChangeLogTopic}): its partition count for {@code validate()}, and its start
 * and end offsets for the early too-far-behind check and the lag metric. Only used when
 * {@code kafka.bootstrap.servers} is set; correctness never depends on it (gaps are caught from
 * the records' sequence numbers), so every read has a short timeout and callers treat a failure
 * as "unknown".
 *
 * <p>Each call opens and closes its own client: they are rare (a validation, a partition
 * assignment, a metric read at most every few seconds), and a long-lived client would hold
 * connections and threads for a task that mostly does not need them.
 */
public final class ChangeLogAdmin {
  private static final long TIMEOUT_MS = 10_000;
  private final Map<String, Object> props;

  /** @param clientProps settings for the admin client ({@code kafka.*} without the prefix) */
  public ChangeLogAdmin(String bootstrapServers, Map<String, Object> clientProps) {
    Map<String, Object> p = new HashMap<>(clientProps);
    p.put("bootstrap.servers", bootstrapServers);
    p.putIfAbsent("default.api.timeout.ms", "15000");
    p.putIfAbsent("request.timeout.ms", "10000");
    this.props = Map.copyOf(p);
  }

  /**
   * The partition count of {@code topic}, or empty when it does not exist (yet: the source
   * creates it on its first start).
   *
   * @throws ExecutionException when Kafka answers with another error
   */
  public OptionalInt partitions(String topic) throws ExecutionException, InterruptedException, TimeoutException {
    try (Admin admin = Admin.create(props)) {
      return OptionalInt.of(admin.describeTopics(List.of(topic)).allTopicNames().get(TIMEOUT_MS, TimeUnit.MILLISECONDS)
          .get(topic).partitions().size());
    } catch (ExecutionException e) {
      if (e.getCause() instanceof UnknownTopicOrPartitionException) {
        return OptionalInt.empty();
      }
      throw e;
    }
  }

  /** The first offset still in {@code tp}, or empty when it cannot be read now. */
  public OptionalLong logStart(TopicPartition tp) throws InterruptedException {
    return offset(tp, OffsetSpec.earliest());
  }

  /** The end offset of {@code tp}, or empty when it cannot be read now. */
  public OptionalLong logEnd(TopicPartition tp) throws InterruptedException {
    return offset(tp, OffsetSpec.latest());
  }

  private OptionalLong offset(TopicPartition tp, OffsetSpec spec) throws InterruptedException {
    try (Admin admin = Admin.create(props)) {
      return OptionalLong.of(admin.listOffsets(Map.of(tp, spec)).all().get(TIMEOUT_MS, TimeUnit.MILLISECONDS)
          .get(tp).offset());
    } catch (ExecutionException | TimeoutException | RuntimeException e) {
      return OptionalLong.empty();
    }
  }
}
