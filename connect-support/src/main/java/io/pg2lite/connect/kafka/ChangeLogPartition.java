package io.pg2lite.connect.kafka;

import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.OptionalLong;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.UnknownTopicOrPartitionException;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;

/**
 * The facts about a change-log partition that both connectors read from Kafka: how many
 * partitions its topic has, where the partition starts and ends, and its last committed record.
 * Each call opens a short-lived client: these are start-up and metric readings, seconds apart.
 *
 * <p>Records are read {@code read_committed}: records of aborted Kafka transactions never count,
 * and a transaction still open hides what follows it, as it does from every consumer of the log.
 */
public final class ChangeLogPartition {
  /** How long one reading waits for Kafka. */
  public static final long TIMEOUT_MS = 10_000;
  private final Map<String, Object> clientProps;

  /** @param extraClientProps client settings ({@code kafka.*} without the prefix: security, timeouts) */
  public ChangeLogPartition(String bootstrapServers, Map<String, Object> extraClientProps) {
    Map<String, Object> p = new HashMap<>(extraClientProps);
    p.put("bootstrap.servers", bootstrapServers);
    p.putIfAbsent("default.api.timeout.ms", "15000");
    p.putIfAbsent("request.timeout.ms", "10000");
    this.clientProps = Map.copyOf(p);
  }

  /** The client settings, for a caller that opens a client of its own kind (creating a topic). */
  public Map<String, Object> clientProps() {
    return clientProps;
  }

  /**
   * The partition count of {@code topic}, or empty when it does not exist.
   *
   * @throws ExecutionException when Kafka answers with another error
   */
  public OptionalInt partitions(String topic) throws ExecutionException, InterruptedException, TimeoutException {
    Admin admin = Admin.create(clientProps);
    try {
      return OptionalInt.of(admin.describeTopics(List.of(topic)).allTopicNames().get(TIMEOUT_MS, TimeUnit.MILLISECONDS)
          .get(topic).partitions().size());
    } catch (ExecutionException e) {
      if (e.getCause() instanceof UnknownTopicOrPartitionException) {
        return OptionalInt.empty();
      }
      throw e;
    } finally {
      closeNow(admin);
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
    Admin admin = Admin.create(clientProps);
    try {
      return OptionalLong.of(admin.listOffsets(Map.of(tp, spec)).all().get(TIMEOUT_MS, TimeUnit.MILLISECONDS)
          .get(tp).offset());
    } catch (ExecutionException | TimeoutException | RuntimeException e) {
      return OptionalLong.empty();
    } finally {
      closeNow(admin);
    }
  }

  /**
   * Closes {@code admin} without waiting for a call still under way: a reading that gave up after
   * {@link #TIMEOUT_MS} is over. {@code Admin.close()} would wait for that call until its own
   * deadline ({@code default.api.timeout.ms}, 15 s more), and a hung broker holds it that long: a
   * sink's partition assignment waited 20 s here while a broker was paused (ClusterFaultsIT).
   */
  private static void closeNow(Admin admin) {
    admin.close(Duration.ZERO);
  }

  /**
   * The last committed record of {@code tp}, or empty when it holds none. Walks back from the end
   * in growing windows, because transaction markers take offsets too.
   *
   * @throws org.apache.kafka.common.errors.TimeoutException (retriable) when Kafka does not answer
   */
  public Optional<ConsumerRecord<byte[], byte[]>> lastRecord(TopicPartition tp) {
    return searchFromEnd(tp, window -> window.isEmpty() ? Optional.empty()
        : Optional.of(window.get(window.size() - 1)));
  }

  /**
   * What {@code search} finds in the committed records at the end of {@code tp}: it is given the
   * last records, in order, in windows growing back from the end (each window holds the one
   * before), until it finds something or the window reaches the start of the partition.
   *
   * @throws org.apache.kafka.common.errors.TimeoutException (retriable) when Kafka does not answer
   */
  public <T> Optional<T> searchFromEnd(TopicPartition tp,
      java.util.function.Function<List<ConsumerRecord<byte[], byte[]>>, Optional<T>> search) {
    Map<String, Object> p = new HashMap<>(clientProps);
    p.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
    p.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false");
    try (KafkaConsumer<byte[], byte[]> consumer = new KafkaConsumer<>(p, new ByteArrayDeserializer(),
        new ByteArrayDeserializer())) {
      consumer.assign(List.of(tp));
      long begin = consumer.beginningOffsets(List.of(tp)).get(tp);
      long end = consumer.endOffsets(List.of(tp)).get(tp);
      for (long window = 16; ; window *= 4) {
        long from = Math.max(begin, end - window);
        consumer.seek(tp, from);
        List<ConsumerRecord<byte[], byte[]>> records = new java.util.ArrayList<>();
        while (consumer.position(tp) < end) {
          for (ConsumerRecord<byte[], byte[]> r : consumer.poll(Duration.ofMillis(500))) {
            records.add(r);
          }
        }
        Optional<T> found = search.apply(records);
        if (found.isPresent() || from == begin) {
          return found;
        }
      }
    }
  }
}
