package io.pg2lite.sink;

import io.pg2lite.connect.PluginVersion;
import io.pg2lite.protocol.codec.ChangeLogCodec;
import io.pg2lite.protocol.codec.ProtocolException;
import io.pg2lite.protocol.message.ChangeLogEntry;
import io.pg2lite.protocol.message.ChangeLogHeaders;
import io.pg2lite.sink.apply.ApplyException;
import io.pg2lite.sink.apply.ReplicaApplier;
import io.pg2lite.sink.config.SinkConfig;
import io.pg2lite.sink.metrics.SinkMetrics;
import io.pg2lite.sink.replica.Replica;
import io.pg2lite.sink.replica.ReplicaState;
import java.nio.charset.StandardCharsets;
import java.sql.SQLException;
import java.util.Collection;
import java.util.HashMap;
import java.util.Map;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.connect.errors.ConnectException;
import org.apache.kafka.connect.header.Header;
import org.apache.kafka.connect.sink.SinkRecord;
import org.apache.kafka.connect.sink.SinkTask;

/**
 * The sink task: records in, replica transactions out. Catch-up by offset: the replica stores the
 * offset of its last applied commit record, and {@link #open} seeks to the next one, whatever
 * Connect's consumer group says. {@link #preCommit} reports only offsets whose transactions are
 * committed in the replica, so the group offset is a hint that never runs ahead of the replica.
 */
public class Pg2liteSinkTask extends SinkTask {
  private final ChangeLogCodec codec = new ChangeLogCodec();
  private Replica replica;
  private ReplicaApplier applier;
  private SinkMetrics metrics;
  private SinkConfig config;

  @Override
  public String version() {
    return PluginVersion.get();
  }

  @Override
  public void start(Map<String, String> props) {
    config = new SinkConfig(props);
    try {
      replica = Replica.open(config.replicaPath, config.journalMode, config.synchronous, config.busyTimeoutMs);
      applier = new ReplicaApplier(replica, config.maxTransactionsPerCommit);
      metrics = SinkMetrics.register(props.getOrDefault("name", "pg2lite-sink"), this::logEnd);
    } catch (SQLException e) {
      throw new ConnectException("cannot open replica " + config.replicaPath + ": " + e.getMessage(), e);
    }
  }

  @Override
  public void open(Collection<TopicPartition> partitions) {
    ReplicaState state = applier.committed();
    for (TopicPartition tp : partitions) {
      if (state.isEmpty()) {
        checkNotBehind(tp, 0L, state);
        context.offset(tp, 0L); // a new replica replays the log from its beginning
      } else if (tp.topic().equals(state.topic()) && tp.partition() == state.partition()) {
        checkNotBehind(tp, state.offset() + 1, state);
        context.offset(tp, state.offset() + 1);
      } else {
        throw new ConnectException("replica holds the log of " + state.topic() + "-" + state.partition()
            + " but the connector reads " + tp + "; a replica follows one change log");
      }
    }
  }

  /** The change log's end offset, for the lag metric; -1 when it cannot be read. */
  private long logEnd() {
    ReplicaState s = applier.committed();
    if (config.kafkaBootstrapServers.isEmpty() || s.isEmpty()) {
      return -1;
    }
    TopicPartition tp = new TopicPartition(s.topic(), s.partition());
    try (org.apache.kafka.clients.admin.Admin admin = org.apache.kafka.clients.admin.Admin.create(adminProps())) {
      return admin.listOffsets(Map.of(tp, org.apache.kafka.clients.admin.OffsetSpec.latest())).all()
          .get(10, java.util.concurrent.TimeUnit.SECONDS).get(tp).offset();
    } catch (Exception e) {
      return -1;
    }
  }

  private Map<String, Object> adminProps() {
    Map<String, Object> p = new HashMap<>(config.kafkaClientProps);
    p.put("bootstrap.servers", config.kafkaBootstrapServers);
    return p;
  }

  /**
   * Fails when the next offset the replica needs is gone from the topic (retention deleted it):
   * a consumer would jump to the log start and the replica would silently miss transactions.
   */
  private void checkNotBehind(TopicPartition tp, long next, ReplicaState state) {
    if (config.kafkaBootstrapServers.isEmpty()) {
      return;
    }
    long logStart;
    try (org.apache.kafka.clients.admin.Admin admin = org.apache.kafka.clients.admin.Admin.create(adminProps())) {
      logStart = admin.listOffsets(Map.of(tp, org.apache.kafka.clients.admin.OffsetSpec.earliest())).all().get()
          .get(tp).offset();
    } catch (java.util.concurrent.ExecutionException e) {
      throw new ConnectException("cannot read the log start of " + tp + ": " + e.getCause().getMessage(), e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new ConnectException("interrupted reading the log start of " + tp, e);
    }
    if (next < logStart) {
      throw new ConnectException("replica too far behind, resync: it needs " + tp + " from offset " + next
          + (state.isEmpty() ? " (a new replica replays the whole log)" : " (after its last commit at watermark "
          + state.watermark() + ")") + " but the topic now starts at offset " + logStart + "; the records in "
          + "between were deleted by retention. Rebuild the replica from a copy of a current replica, or raise the "
          + "topic's retention.");
    }
  }

  @Override
  public void put(Collection<SinkRecord> records) {
    long transactions = 0;
    java.time.Instant lastCommitTime = null;
    for (SinkRecord r : records) {
      ChangeLogEntry entry;
      try {
        entry = codec.decode(bytes(r.value()));
      } catch (ProtocolException e) {
        applier.abort();
        throw new ApplyException(r.topic(), r.kafkaPartition(), r.kafkaOffset(), "?", e.getMessage(), e);
      }
      applier.apply(entry, header(r, ChangeLogHeaders.REPLICA_VERSION), r.topic(), r.kafkaPartition(), r.kafkaOffset());
      if (entry.message() instanceof io.pg2lite.protocol.message.Commit c) {
        transactions++;
        lastCommitTime = c.commitTime() != null ? c.commitTime() : lastCommitTime;
      }
    }
    applier.flush();
    ReplicaState s = applier.committed();
    metrics.batchApplied(records.size(), transactions, s.watermark(), s.offset(), lastCommitTime);
  }

  @Override
  public Map<TopicPartition, OffsetAndMetadata> preCommit(Map<TopicPartition, OffsetAndMetadata> currentOffsets) {
    ReplicaState state = applier.committed();
    Map<TopicPartition, OffsetAndMetadata> out = new HashMap<>();
    if (!state.isEmpty()) {
      out.put(new TopicPartition(state.topic(), state.partition()), new OffsetAndMetadata(state.offset() + 1));
    }
    return out;
  }

  private static byte[] bytes(Object value) {
    if (value instanceof byte[] b) {
      return b;
    }
    if (value instanceof String s) {
      return s.getBytes(StandardCharsets.UTF_8);
    }
    if (value == null) {
      return null;
    }
    throw new ConnectException("change-log record value is a " + value.getClass().getName()
        + "; configure value.converter=org.apache.kafka.connect.converters.ByteArrayConverter");
  }

  private static String header(SinkRecord r, String key) {
    Header h = r.headers().lastWithName(key);
    if (h == null || h.value() == null) {
      return null;
    }
    Object v = h.value();
    return v instanceof byte[] b ? new String(b, StandardCharsets.UTF_8) : v.toString();
  }

  @Override
  public void stop() {
    if (metrics != null) {
      metrics.close();
    }
    if (replica != null) {
      try {
        if (applier != null) {
          applier.abort();
        }
        replica.close();
      } catch (SQLException e) {
        throw new ConnectException("cannot close replica: " + e.getMessage(), e);
      }
    }
  }
}
