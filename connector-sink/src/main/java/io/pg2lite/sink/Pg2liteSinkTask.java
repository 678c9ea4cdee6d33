package io.pg2lite.sink;

import io.pg2lite.replica.space.FullReplicaRetries;
import io.pg2lite.connect.PluginVersion;
import io.pg2lite.connect.failure.Failures;
import io.pg2lite.connect.failure.Healing;
import io.pg2lite.connect.kafka.StrandedReplica;
import io.pg2lite.protocol.message.ChangeLogEntry;
import io.pg2lite.replica.apply.LogContinuity;
import io.pg2lite.sink.config.SinkConfig;
import io.pg2lite.sink.kafka.ChangeLogAdmin;
import io.pg2lite.replica.lineage.ChangeLogRecord;
import io.pg2lite.replica.lineage.LineageEvents;
import io.pg2lite.replica.lineage.ReplicaLineages;
import io.pg2lite.sink.metrics.SinkMetrics;
import io.pg2lite.replica.ReplicaException;
import io.pg2lite.replica.file.ReplicaState;
import io.pg2lite.replica.space.ReplicaSpace;
import java.util.Collection;
import java.util.HashMap;
import java.util.Map;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.connect.errors.ConnectException;
import org.apache.kafka.connect.errors.RetriableException;
import org.apache.kafka.connect.sink.SinkRecord;
import org.apache.kafka.connect.sink.SinkTask;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The sink task: records in, replica transactions out. Catch-up by offset: the replica stores the
 * offset of its last applied commit record, and {@link #open} seeks to the next one, whatever
 * Connect's consumer group says. {@link #preCommit} reports only offsets whose transactions are
 * committed in the replica, so the group offset is a hint that never runs ahead of the replica.
 *
 * <p>Every record must follow the one before it ({@link io.pg2lite.replica.apply.LogContinuity}): a
 * gap stops the task, whatever the consumer's reset policy did, and a record delivered again is
 * passed over. Which replica file a record goes to, and the build of a new lineage beside the
 * replica, is {@link ReplicaLineages}'; this task feeds it records and hands its position to
 * Connect.
 *
 * <p>Faults: a transient one ({@link Failures}: the replica locked by another process past the
 * busy timeout) rolls back what is not committed, rewinds the consumer to the replica's offset,
 * and throws {@link RetriableException} after {@code context.timeout} of a bounded backoff; the
 * task stays RUNNING. Connect then calls {@link #put} again with the same batch, which is passed
 * over: that batch may begin inside an upstream transaction whose begin was rolled back, and the
 * rewind delivers everything after the replica's offset again anyway. A full replica (its disk,
 * or {@code replica.max.size.bytes}) takes the same path, for as long as it lasts
 * ({@link FullReplicaRetries}). A permanent fault (bad input, a gap), or a transient one
 * outlasting {@code retry.timeout.ms}, stops the task; nothing committed is lost either way. A
 * rebalance ({@link #close}) rolls back too.
 */
public class Pg2liteSinkTask extends SinkTask {
  private static final Logger LOG = LoggerFactory.getLogger(Pg2liteSinkTask.class);
  /** The replica, and the one a new lineage builds beside it. */
  private ReplicaLineages lineage;
  private SinkMetrics metrics;
  private SinkConfig config;
  /** Heals failed batches: the consumer is rewound and Connect retries after the backoff. */
  private Healing healing;
  /** The same for a full replica, without a time limit. */
  private FullReplicaRetries full;
  /** Bytes of the records applied since the replica's last commit: what a full replica must make room for. */
  private long uncommittedBytes;
  /** The commit {@link #uncommittedBytes} counts from; null once a rollback starts the count again. */
  private ReplicaState uncommittedSince;
  private String connector;
  /** The change log as {@code topics} names it; empty with {@code topics.regex}. */
  private java.util.Optional<TopicPartition> log;
  /** Null without {@code kafka.bootstrap.servers}. */
  private ChangeLogAdmin admin;
  /** Empty without {@code snapshot.dir}. */
  private java.util.Optional<ReplicaSnapshots> snapshots = java.util.Optional.empty();
  /** What the start-up restore found, for the too-far-behind message; empty when it was not needed. */
  private String restoreNote = "";
  /** A transient fault rewound the consumer: the next {@link #put} is Connect's retry of the failed batch. */
  private boolean rewound;

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
    config = new SinkConfig(props);
    connector = props.getOrDefault("name", "pg2lite-sink");
    admin = config.kafkaBootstrapServers.isEmpty() ? null
        : new ChangeLogAdmin(config.kafkaBootstrapServers, config.kafkaClientProps);
    healing = Healing.forRetries("The replica " + config.replicaPath, config.retryBackoffMaxMs,
        config.retryTimeoutMs, SinkConfig.RETRY_TIMEOUT_CONFIG, LOG);
    ReplicaSpace space = new ReplicaSpace(config.replicaPath, SinkConfig.MAX_SIZE_CONFIG, config.maxSizeBytes,
        "WAL".equalsIgnoreCase(config.journalMode));
    full = new FullReplicaRetries(space, config.retryBackoffMaxMs, LOG, System::currentTimeMillis);
    metrics = SinkMetrics.register(connector, this::logEnd);
    metrics.replicaSpace(full::fullSince, space::usableBytes);
    log = ChangeLogTopics.of(props.get("topics"));
    openReplica();
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
    lineage.abort();
    ReplicaState state = lineage.position();
    rewound = false;
    for (TopicPartition tp : partitions) {
      if (state.isEmpty()) {
        context.offset(tp, startingPoint(tp, 0L, state)); // a new replica replays the log from its beginning
      } else if (tp.topic().equals(state.topic()) && tp.partition() == state.partition()) {
        context.offset(tp, startingPoint(tp, state.offset() + 1, state));
      } else {
        throw new ConnectException("replica holds the log of " + state.topic() + "-" + state.partition()
            + " but the connector reads " + tp + "; a replica follows one change log");
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
    if (lineage != null) {
      lineage.abort();
    }
    rewound = false;
  }

  private void openReplica() {
    snapshots = ReplicaSnapshots.of(config, admin, connector, log);
    ReplicaStartup.Opened opened = new ReplicaStartup(config).open(snapshots);
    restoreNote = opened.restoreNote();
    lineage = ReplicaLineages.open(config.replicaPath, ReplicaStartup.settings(config), opened.replica(),
        opened.applier(), (topic, partition, offset) -> context.offset(new TopicPartition(topic, partition), offset),
        snapshots.<LineageEvents>map(sn -> sn).orElse(LineageEvents.NONE));
    metrics.lineage(lineage);
    snapshots.ifPresent(sn -> {
      sn.start();
      metrics.snapshots(sn);
    });
  }

  /** The change log's end offset, for the lag metric; -1 when it cannot be read. */
  private long logEnd() {
    ReplicaLineages l = lineage;
    if (l == null) {
      return -1;
    }
    ReplicaState s = l.position();
    if (admin == null || s.isEmpty()) {
      return -1;
    }
    try {
      return admin.logEnd(new TopicPartition(s.topic(), s.partition())).orElse(-1);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return -1;
    }
  }

  /**
   * Where the reader starts: at {@code next}, the record the replica needs, when the topic still
   * holds it (or when that cannot be told: no admin client; the records' sequence numbers then
   * catch a gap). When it is gone, without {@code resync.auto} the task fails "too far behind"
   * ({@link ChangeLogAdmin#requireOffset}); with it the replica is stranded
   * ({@link ReplicaLineages#strand}) and the reader starts at the log start, where a new
   * lineage's begin will be found.
   */
  private long startingPoint(TopicPartition tp, long next, ReplicaState state) {
    if (admin == null) {
      return next;
    }
    String why = state.isEmpty() ? "a new replica replays the whole log"
        : "after its last commit at watermark " + state.watermark();
    if (!config.resyncAuto) {
      admin.requireOffset(tp, next, why, restoreNote);
      return next;
    }
    java.util.OptionalLong start;
    try {
      start = admin.logStart(tp);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new ConnectException("interrupted reading the log start of " + tp, e);
    }
    String version = state.isEmpty() ? admin.replicaVersion(tp).orElse(null) : state.replicaVersion();
    if (start.isEmpty() || next >= start.getAsLong() || version == null) {
      admin.requireOffset(tp, next, why, restoreNote); // a log whose every record is gone: nothing to wait for
      return next;
    }
    lineage.strand("it needs " + tp + " from offset " + next + " (" + why + "), but the topic now starts at offset "
        + start.getAsLong() + ": the records in between were deleted" + restoreNote, version);
    return start.getAsLong();
  }

  /**
   * Counts a record's bytes towards the transaction the replica has not committed yet (for the
   * space a full replica needs); the count starts again at each commit and after a rollback.
   */
  private void countUncommitted(byte[] value) {
    ReplicaState committed = lineage.position();
    if (committed != uncommittedSince) {
      uncommittedSince = committed;
      uncommittedBytes = 0;
    }
    uncommittedBytes += value == null ? 0 : value.length;
  }

  @Override
  public void put(Collection<SinkRecord> records) {
    full.settle();
    if (rewound) {
      rewound = false;
      rewind(); // again: this batch is dropped, the rewind delivers it (and what follows) anew
      return;
    }
    long transactions = 0;
    long applied = 0;
    java.time.Instant lastCommitTime = null;
    ReplicaState before = lineage.position();
    try {
      for (SinkRecord r : records) {
        countUncommitted(SinkRecords.value(r));
        ChangeLogEntry entry = accept(SinkRecords.of(r));
        if (entry == null) {
          continue; // passed over, or a part of a split message: applied with its last part
        }
        applied++;
        metrics.applied(entry.message());
        if (entry.message() instanceof io.pg2lite.protocol.message.Commit c) {
          transactions++;
          lastCommitTime = c.commitTime() != null ? c.commitTime() : lastCommitTime;
        }
      }
      lineage.flush();
    } catch (RuntimeException e) {
      long pending = uncommittedBytes;
      lineage.abort();
      uncommittedSince = null;
      throw transientOrPermanent(e, pending);
    }
    if (applied > 0) {
      healing.succeeded(); // an empty batch proves nothing about a fault that is still there
    }
    ReplicaState s = lineage.position();
    if (s != before) {
      full.committed();
    }
    metrics.batchApplied(applied, transactions, s.watermark(), s.offset(), lastCommitTime);
  }

  /**
   * Hands one record to the lineages. A gap of deleted records, with {@code resync.auto}, strands
   * the lineage the record belongs to instead of failing: the record is then taken again, passed
   * over (or, from another lineage, looked at as such).
   */
  private ChangeLogEntry accept(ChangeLogRecord r) {
    try {
      return lineage.accept(r);
    } catch (LogContinuity.LogGapException gap) {
      if (!config.resyncAuto || !gap.recordsGone()) {
        throw gap;
      }
      ReplicaState at = lineage.position();
      lineage.strand(gap.gap(), r.replicaVersion() != null ? r.replicaVersion() : at.replicaVersion());
      uncommittedSince = null;
      return lineage.accept(r);
    }
  }

  /**
   * After a failed batch (already rolled back), with {@code pendingBytes} of records applied
   * since the replica's last commit: a full replica, or a transient fault, rewinds and asks
   * Connect to retry after a backoff; anything else, or transient faults lasting past the retry
   * timeout, is returned to be thrown as is.
   */
  private RuntimeException transientOrPermanent(RuntimeException e, long pendingBytes) {
    long wait;
    if (full.isFull(e)) {
      wait = full.failed(e, pendingBytes);
    } else if (Failures.isTransient(e)) {
      try {
        wait = healing.failed(e, "retrying from the replica's last commit");
      } catch (Healing.GaveUpException gaveUp) {
        return gaveUp;
      }
    } else {
      return e;
    }
    rewind();
    rewound = true;
    context.timeout(wait);
    return new RetriableException(e.getMessage(), e);
  }

  /** Seeks every assigned partition back to the record after the replica's last commit. */
  private void rewind() {
    ReplicaState state = lineage.position();
    for (TopicPartition tp : context.assignment()) {
      context.offset(tp, state.isEmpty() ? 0L : state.offset() + 1);
    }
  }

  @Override
  public Map<TopicPartition, OffsetAndMetadata> preCommit(Map<TopicPartition, OffsetAndMetadata> currentOffsets) {
    ReplicaState state = lineage.position();
    Map<TopicPartition, OffsetAndMetadata> out = new HashMap<>();
    java.util.Optional<StrandedReplica> stranded = lineage.strandedMark();
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
    snapshots.ifPresent(ReplicaSnapshots::close);
    if (metrics != null) {
      metrics.close();
    }
    if (lineage != null) {
      try {
        lineage.close();
      } catch (ReplicaException e) {
        throw new ConnectException("cannot close replica: " + e.getMessage(), e);
      }
    }
  }
}
