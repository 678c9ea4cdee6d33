package io.pg2lite.testkit.kafka;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;

/**
 * Reads a topic from the beginning the way a careful consumer of the change log does: with
 * {@code isolation.level=read_committed}, so records of open or aborted Kafka transactions are
 * never returned. No consumer group: partitions are assigned and positions never committed.
 */
public final class TopicReader implements AutoCloseable {
  private final KafkaConsumer<byte[], byte[]> consumer;

  public TopicReader(String bootstrapServers, String topic) {
    this(bootstrapServers, topic, "read_committed");
  }

  /** A reader with the given isolation level ({@code read_committed} or {@code read_uncommitted}). */
  public TopicReader(String bootstrapServers, String topic, String isolationLevel) {
    Properties props = new Properties();
    props.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers);
    props.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, isolationLevel);
    props.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false");
    props.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class.getName());
    props.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class.getName());
    consumer = new KafkaConsumer<>(props);
    List<TopicPartition> partitions = consumer.partitionsFor(topic, Duration.ofSeconds(30)).stream()
        .map(p -> new TopicPartition(topic, p.partition())).toList();
    consumer.assign(partitions);
    consumer.seekToBeginning(partitions);
  }

  /** Polls until at least {@code count} records have arrived or {@code timeout} passes; returns all read. */
  public List<ConsumerRecord<byte[], byte[]>> read(int count, Duration timeout) {
    List<ConsumerRecord<byte[], byte[]>> out = new ArrayList<>();
    long deadline = System.nanoTime() + timeout.toNanos();
    while (out.size() < count && System.nanoTime() < deadline) {
      consumer.poll(Duration.ofMillis(100)).forEach(out::add);
    }
    return out;
  }

  /**
   * Reads everything the topic held when called: polls until the position of every partition has
   * reached the end offset taken at the start (the last stable offset under read_committed), so
   * a large topic is read whole however long that takes, unlike {@link #readFor}, which stops
   * after a fixed time. Fails if {@code timeout} passes first, rather than return a prefix that a
   * caller would mistake for the whole log.
   */
  public List<ConsumerRecord<byte[], byte[]>> readToEnd(Duration timeout) {
    Map<TopicPartition, Long> end = endOffsets();
    List<ConsumerRecord<byte[], byte[]>> out = new ArrayList<>();
    long deadline = System.nanoTime() + timeout.toNanos();
    while (!reached(end)) {
      if (System.nanoTime() > deadline) {
        throw new IllegalStateException("topic not read to its end " + end + " within " + timeout
            + ": " + out.size() + " records read");
      }
      consumer.poll(Duration.ofMillis(100)).forEach(out::add);
    }
    return out;
  }

  private boolean reached(Map<TopicPartition, Long> end) {
    return end.entrySet().stream().allMatch(e -> consumer.position(e.getKey()) >= e.getValue());
  }

  /** Polls for {@code quiet}; returns what arrived (use to check that nothing does). */
  public List<ConsumerRecord<byte[], byte[]>> readFor(Duration quiet) {
    List<ConsumerRecord<byte[], byte[]>> out = new ArrayList<>();
    long deadline = System.nanoTime() + quiet.toNanos();
    while (System.nanoTime() < deadline) {
      consumer.poll(Duration.ofMillis(50)).forEach(out::add);
    }
    return out;
  }

  /** The log end offsets as the consumer sees them (the last stable offset under read_committed). */
  public Map<TopicPartition, Long> endOffsets() {
    return consumer.endOffsets(consumer.assignment());
  }

  @Override
  public void close() {
    consumer.close();
  }
}
