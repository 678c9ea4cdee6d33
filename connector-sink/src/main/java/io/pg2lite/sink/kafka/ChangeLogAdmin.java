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
 * the source's {@code ChangeLogTopic}): its partition count for {@code validate()}, its start
 * and end offsets for the early too-far-behind check and the lag metric, and the lineage of its
 * newest records for choosing a snapshot to restore. Only used when
 * {@code kafka.bootstrap.servers} is set; correctness never depends on it (gaps are caught from
 * the records' sequence numbers), so every read has a short timeout and callers treat a failure
 * as "unknown".
 *
 * <p>Each call opens and closes its own client: they are rare (a validation, a partition
 * assignment, a metric read at most every few seconds), and a long-lived client would hold
 * connections and threads for a task that mostly does not need them.
 */
public final class ChangeLogAdmin {
  private static final org.slf4j.Logger LOG = org.slf4j.LoggerFactory.getLogger(ChangeLogAdmin.class);
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

  /**
   * Fails early if {@code next}, the offset a replica needs, is gone from the topic (retention
   * deleted it). When the log start cannot be read now it only warns: the first record after a
   * gap stops the task anyway (the sink's continuity check on sequence numbers).
   *
   * @param why where {@code next} comes from, for the message
   * @param note appended to the message (what the snapshot store held, or "")
   */
  public void requireOffset(TopicPartition tp, long next, String why, String note) {
    OptionalLong logStart;
    try {
      logStart = logStart(tp);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new org.apache.kafka.connect.errors.ConnectException("interrupted reading the log start of " + tp, e);
    }
    if (logStart.isEmpty()) {
      LOG.warn("Cannot read the log start of {} now; relying on the records' sequence numbers", tp);
    } else if (next < logStart.getAsLong()) {
      throw new org.apache.kafka.connect.errors.ConnectException("replica too far behind, resync: it needs " + tp
          + " from offset " + next + " (" + why + ") but the topic now starts at offset " + logStart.getAsLong()
          + "; the records in between were deleted by retention. Rebuild the replica from a copy of a current "
          + "replica, or raise the topic's retention." + note);
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

  /**
   * The replica version (lineage header) of the newest committed record of {@code tp}: the
   * lineage a restored snapshot must share. Empty when the log holds no record, or none with the
   * header, within a short read of its tail.
   */
  public java.util.Optional<String> replicaVersion(TopicPartition tp) {
    Map<String, Object> p = new HashMap<>(props);
    p.put("isolation.level", "read_committed");
    p.put("enable.auto.commit", "false");
    p.put("key.deserializer", org.apache.kafka.common.serialization.ByteArrayDeserializer.class.getName());
    p.put("value.deserializer", org.apache.kafka.common.serialization.ByteArrayDeserializer.class.getName());
    try (org.apache.kafka.clients.consumer.KafkaConsumer<byte[], byte[]> c =
        new org.apache.kafka.clients.consumer.KafkaConsumer<>(p)) {
      c.assign(List.of(tp));
      long end = c.endOffsets(List.of(tp), java.time.Duration.ofMillis(TIMEOUT_MS)).get(tp);
      long start = c.beginningOffsets(List.of(tp), java.time.Duration.ofMillis(TIMEOUT_MS)).get(tp);
      // The tail: a few records, and the transaction markers between them.
      c.seek(tp, Math.max(start, end - 16));
      String version = null;
      long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(TIMEOUT_MS);
      while (c.position(tp) < end && System.nanoTime() < deadline) {
        for (var r : c.poll(java.time.Duration.ofMillis(200))) {
          var h = r.headers().lastHeader(io.pg2lite.protocol.message.ChangeLogHeaders.REPLICA_VERSION);
          if (h != null) {
            version = new String(h.value(), java.nio.charset.StandardCharsets.UTF_8);
          }
        }
      }
      return java.util.Optional.ofNullable(version);
    }
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
