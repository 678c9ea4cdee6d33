package io.pg2lite.sink.kafka;

import io.pg2lite.connect.kafka.ChangeLogPartition;
import io.pg2lite.protocol.message.ChangeLogHeaders;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.OptionalLong;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeoutException;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.connect.errors.ConnectException;

/**
 * The sink's own view of the change-log topic through an admin client (the sink's counterpart of
 * the source's {@code ChangeLogTopic}): its partition count for {@code validate()}, its start
 * and end offsets for the early too-far-behind check and the lag metric, and the lineage of its
 * newest records for choosing a snapshot to restore, all read through {@link ChangeLogPartition},
 * the facts both connectors read. Only used when
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
  private final ChangeLogPartition log;

  /** @param clientProps settings for the admin client ({@code kafka.*} without the prefix) */
  public ChangeLogAdmin(String bootstrapServers, Map<String, Object> clientProps) {
    this.log = new ChangeLogPartition(bootstrapServers, clientProps);
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
      throw new ConnectException("interrupted reading the log start of " + tp, e);
    }
    if (logStart.isEmpty()) {
      LOG.warn("Cannot read the log start of {} now; relying on the records' sequence numbers", tp);
    } else if (next < logStart.getAsLong()) {
      throw new ConnectException("replica too far behind, resync: it needs " + tp
          + " from offset " + next + " (" + why + ") but the topic now starts at offset " + logStart.getAsLong()
          + "; the records in between were deleted by retention. Rebuild the replica from a copy of a current "
          + "replica, or raise the topic's retention." + note);
    }
  }

  /** The first offset still in {@code tp}, or empty when it cannot be read now. */
  public OptionalLong logStart(TopicPartition tp) throws InterruptedException {
    return log.logStart(tp);
  }

  /** The end offset of {@code tp}, or empty when it cannot be read now. */
  public OptionalLong logEnd(TopicPartition tp) throws InterruptedException {
    return log.logEnd(tp);
  }

  /**
   * The replica version (lineage header) of the newest committed record of {@code tp}: the
   * lineage a restored snapshot must share. Empty when the log holds no record, or its newest
   * record has no such header.
   */
  public Optional<String> replicaVersion(TopicPartition tp) {
    return log.lastRecord(tp).map(r -> r.headers().lastHeader(ChangeLogHeaders.REPLICA_VERSION))
        .map(h -> new String(h.value(), StandardCharsets.UTF_8));
  }
}
