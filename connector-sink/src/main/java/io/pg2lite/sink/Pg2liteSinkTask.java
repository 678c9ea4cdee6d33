package io.pg2lite.sink;

import io.pg2lite.connect.PluginVersion;
import io.pg2lite.connect.WorkerVersion;
import io.pg2lite.connect.kafka.StrandedReplica;
import io.pg2lite.protocol.message.ChangeLogEntry;
import io.pg2lite.replica.ReplicaException;
import io.pg2lite.replica.file.ReplicaState;
import io.pg2lite.connect.kafka.ChangeLogView;
import io.pg2lite.replica.follow.ReplicaFollowing;
import io.pg2lite.replica.lineage.ChangeLogRecord;
import io.pg2lite.replica.verify.VerifyReport;
import io.pg2lite.sink.config.SinkConfig;
import io.pg2lite.snapshot.s3.SnapshotStores;
import io.pg2lite.connect.kafka.ChangeLogAdmin;
import io.pg2lite.connect.kafka.hanging.HangingTransactionWatch;
import io.pg2lite.connect.kafka.hanging.StalledReaderWatch;
import io.pg2lite.connect.metrics.ReplicaStages;
import io.pg2lite.sink.metrics.SinkMetrics;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.connect.errors.ConnectException;
import org.apache.kafka.connect.errors.RetriableException;
import org.apache.kafka.connect.sink.SinkRecord;
import org.apache.kafka.connect.sink.SinkTask;
import org.apache.kafka.connect.sink.SinkTaskContext;

/**
 * The sink task: Connect's adapter over {@link ReplicaFollowing}, the replica core a follower runs
 * too (ADR 0032), which holds the guarantees (catch-up by offset, atomic transactions, continuity,
 * stranding, fault handling). What is Connect's is here: {@link #open} seeks every assignment to
 * {@link ReplicaFollowing#startingOffset}, whatever Connect's consumer group says; {@link
 * #preCommit} reports only offsets whose transactions are committed in the replica (or the
 * stranded mark), so the group offset is a hint that never runs ahead of the replica.
 *
 * <p>Faults: a transient one, or a full replica, comes back from the core as
 * {@link ReplicaFollowing.RetryLater}, already rolled back; the task rewinds the consumer to the
 * replica's offset and throws {@link RetriableException} after {@code context.timeout} of the
 * wait; the task stays RUNNING. Connect then calls {@link #put} again with the same batch, which
 * is passed over: that batch may begin inside an upstream transaction whose begin was rolled
 * back, and the rewind delivers everything after the replica's offset again anyway. Anything else
 * stops the task; nothing committed is lost either way. A rebalance ({@link #close}) rolls back too.
 *
 * <p>With {@code kafka.bootstrap.servers}, a {@link StalledReaderWatch} reports a hanging Kafka
 * transaction on the change log, which the sink, reading read_committed, would otherwise sit behind
 * in silence (and aborts it with {@code hanging.transactions.abort=true}; ADR 0038).
 *
 * <p>Verifications (ADR 0040) complete on the replica's verifier thread; with
 * {@code verify.mismatch=fail} a mismatch fails the task at the next {@link #put}, before that
 * batch is applied: everything committed stays, and the task resumes from there once restarted.
 */
public class Pg2liteSinkTask extends SinkTask {
  /** How long start-up waits for the replica's writer lock: a previous task of this connector stopping. */
  static final Duration LOCK_WAIT = Duration.ofSeconds(30);
  private ReplicaFollowing replica;
  private SinkMetrics metrics;
  private SinkConfig config;
  /** The change log as {@code topics} names it; empty with {@code topics.regex}. */
  private Optional<TopicPartition> log;
  /** Null without {@code kafka.bootstrap.servers}. */
  private ChangeLogAdmin admin;
  /** A transient fault rewound the consumer: the next {@link #put} is Connect's retry of the failed batch. */
  private boolean rewound;
  /** Reports a hanging Kafka transaction the sink stalls behind; null without an admin client or {@code topics}. */
  private StalledReaderWatch hanging;
  /** Logs and counts verification outcomes, and keeps a mismatch to fail on ({@code verify.mismatch}). */
  private VerifyReport verify;

  @Override
  public String version() {
    return PluginVersion.get();
  }

  /**
   * Restores the replica from a snapshot if its file is missing, opens it, and starts the snapshot
   * schedule, before Connect reports the task RUNNING: RUNNING means the replica file is in place,
   * and no reader can open the path while a restore replaces it (ADR 0022). The change log is the
   * topic {@code topics} names, partition 0; {@link #open} checks Connect assigned exactly that.
   */
  @Override
  public void start(Map<String, String> props) {
    WorkerVersion.requireSupported(); // tasks start on every worker of the cluster, maybe older ones
    config = new SinkConfig(props);
    String connector = props.getOrDefault("name", "pg2lite-sink");
    admin = config.kafkaBootstrapServers.isEmpty() ? null
        : new ChangeLogAdmin(config.kafkaBootstrapServers, config.kafkaClientProps);
    log = ChangeLogTopics.of(props.get("topics"));
    if (config.replica.hasSnapshotStore() && log.isEmpty()) {
      throw new ConnectException("a snapshot store needs 'topics' to name the change-log topic (one "
          + "topic, not topics.regex): a restore happens before Connect assigns the topic");
    }
    metrics = SinkMetrics.register(connector, this::logEnd);
    metrics.publishThroughWorker(context, SinkTaskContext.class);
    verify = new VerifyReport(config.verifyMismatch);
    metrics.verify(verify);
    if (admin != null && log.isPresent()) {
      hanging = StalledReaderWatch.start(new HangingTransactionWatch.Settings("sink connector " + connector,
          config.kafkaBootstrapServers, config.hangingTransactionsAbort, SinkConfig.HANGING_ABORT_CONFIG),
          config.kafkaClientProps, log.get().topic());
      metrics.hangingTransactions(hanging.watch());
    }
    try {
      replica = ReplicaFollowing.open(SnapshotStores.followSettings("sink connector " + connector, config.replica)
              .withVerify(verify),
          admin == null ? ChangeLogView.UNKNOWN : admin,
          log.map(TopicPartition::topic).orElse(null), 0,
          (topic, partition, offset) -> context.offset(new TopicPartition(topic, partition), offset), LOCK_WAIT);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new ConnectException("interrupted while opening the replica " + config.replica.replicaPath, e);
    } catch (IllegalArgumentException e) {
      closeWatches();
      throw new ConnectException(e.getMessage(), e); // a snapshot store that cannot be used as configured
    } catch (RuntimeException e) {
      closeWatches();
      throw e;
    }
    metrics.replicaSpace(replica::fullSince, replica::usableBytes);
    metrics.lineage(replica.lineageFigures());
    replica.snapshotFigures().ifPresent(metrics::snapshots);
  }

  /** Every assignment seeks to the record after the replica's last commit. */
  @Override
  public void open(Collection<TopicPartition> partitions) {
    for (TopicPartition tp : partitions) {
      if (log.isPresent() && !log.get().equals(tp)) {
        throw new ConnectException("the sink was assigned " + tp + " but follows " + log.get() + " ('topics'); a "
            + "replica follows one change log, a topic of one partition");
      }
    }
    rewound = false;
    for (TopicPartition tp : partitions) {
      try {
        context.offset(tp, replica.startingOffset(tp.topic(), tp.partition()));
      } catch (IllegalStateException | ReplicaFollowing.TooFarBehind e) {
        throw new ConnectException(e.getMessage(), e);
      }
    }
  }

  /**
   * The partition is taken away (a rebalance) or the task stops: an upstream transaction still
   * open, perhaps over several batches, is rolled back; the next {@link #open} resumes after the
   * replica's last commit.
   */
  @Override
  public void close(Collection<TopicPartition> partitions) {
    if (replica != null) {
      replica.abort();
    }
    rewound = false;
  }

  /** The change log's end offset, for the lag metric; -1 when it cannot be read. */
  private long logEnd() {
    ReplicaFollowing r = replica;
    if (r == null || admin == null) {
      return -1;
    }
    ReplicaState s = r.position();
    return s.isEmpty() ? -1 : admin.logEnd(s.topic(), s.partition()).orElse(-1);
  }

  @Override
  public void put(Collection<SinkRecord> records) {
    verify.mismatch().ifPresent(m -> {
      throw new ConnectException(m);
    });
    if (hanging != null && !records.isEmpty()) {
      hanging.delivered(); // not stalled, whatever becomes of the batch
    }
    if (rewound) {
      rewound = false;
      rewind(); // again: this batch is dropped, the rewind delivers it (and what follows) anew
      return;
    }
    Instant fetched = Instant.now();
    long fetchedNanos = System.nanoTime();
    List<ChangeLogRecord> batch = new ArrayList<>(records.size());
    for (SinkRecord r : records) {
      batch.add(SinkRecords.of(r));
    }
    ReplicaFollowing.Batch done;
    try {
      done = replica.apply(batch, (ChangeLogEntry e) -> metrics.applied(e.message()));
    } catch (ReplicaFollowing.RetryLater retry) {
      rewind();
      rewound = true;
      context.timeout(retry.waitMs());
      throw new RetriableException(retry.getMessage(), retry.getCause());
    }
    if (done.committed()) {
      ReplicaStages.record(metrics.stages(), fetched, fetchedNanos, done.commitTimes(), System.nanoTime());
    }
    ReplicaState s = replica.position();
    metrics.batchApplied(done.applied(), done.transactions(), s.watermark(), s.offset(), done.lastCommitTime());
  }

  /** Seeks every assigned partition back to the record after the replica's last commit. */
  private void rewind() {
    long next = replica.nextOffset();
    for (TopicPartition tp : context.assignment()) {
      context.offset(tp, next);
    }
  }

  /** Closes the metrics, then the watch for hanging transactions. */
  private void closeWatches() {
    if (metrics != null) {
      metrics.close();
    }
    if (hanging != null) {
      hanging.close();
      hanging = null;
    }
  }

  @Override
  public Map<TopicPartition, OffsetAndMetadata> preCommit(Map<TopicPartition, OffsetAndMetadata> currentOffsets) {
    ReplicaState state = replica.position();
    Map<TopicPartition, OffsetAndMetadata> out = new HashMap<>();
    Optional<StrandedReplica> stranded = replica.strandedMark();
    if (stranded.isPresent()) {
      // Asks a source with resync.auto for a new lineage: the mark names the lineage that cannot go on.
      for (TopicPartition tp : context.assignment()) {
        out.put(tp, new OffsetAndMetadata(stranded.get().needs(), stranded.get().metadata()));
      }
    } else if (!state.isEmpty()) {
      out.put(new TopicPartition(state.topic(), state.partition()), new OffsetAndMetadata(state.offset() + 1));
    }
    return out;
  }

  @Override
  public void stop() {
    closeWatches();
    if (replica != null) {
      try {
        replica.close();
      } catch (ReplicaException e) {
        throw new ConnectException("cannot close replica: " + e.getMessage(), e);
      }
    }
  }
}
