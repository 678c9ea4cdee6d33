package io.pg2lite.follower;

import io.pg2lite.connect.kafka.StrandedReplica;
import io.pg2lite.follower.config.FollowerConfig;
import io.pg2lite.connect.kafka.ChangeLogAdmin;
import io.pg2lite.connect.metrics.ReplicaStages;
import io.pg2lite.connect.metrics.StageTimes;
import io.pg2lite.follower.kafka.ConsumerRecords;
import io.pg2lite.follower.metrics.FollowerMetrics;
import io.pg2lite.protocol.watermark.Watermark;
import io.pg2lite.replica.ReplicaException;
import io.pg2lite.replica.file.ReplicaState;
import io.pg2lite.replica.follow.ReplicaFollowing;
import io.pg2lite.replica.lineage.ChangeLogRecord;
import io.pg2lite.replica.verify.VerifyReport;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRebalanceListener;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.WakeupException;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A replica follower: keeps one local SQLite replica in sync with the change-log topic, outside
 * Kafka Connect, with the sink's guarantees and the sink's code ({@link ReplicaFollowing}, ADR 0032).
 *
 * <p>{@link #start} takes the replica's writer lock, restores it from the snapshot store when its
 * file is missing, opens it, and starts one thread that polls a plain {@link KafkaConsumer}
 * ({@code read_committed}) and applies what it reads. The consumer joins a group of its own
 * (subscribe, not assign: a source with {@code resync.auto} only reads the stranded-replica mark
 * of groups with members), and every assignment seeks to the record after the replica's last
 * commit: the replica's stored position decides, never the group's offset, which the follower
 * commits only as a hint (or as the stranded mark).
 *
 * <p>Faults: a transient one rolls back, waits the backoff and reads again from the replica's
 * offset; a permanent one (bad input, a gap without {@code resync.auto}) ends the follower in
 * {@link State#FAILED}, nothing committed lost, with the fault in {@link #failure()}; waiters
 * are woken with it. {@link #close} is clean at any point: what is not committed rolls back.
 * A verification that finds the replica different from Postgres (ADR 0040) is logged and counted;
 * with {@code verify.mismatch=fail} it ends the follower FAILED at the next turn of its loop,
 * naming the table, with everything committed kept.
 */
public final class Follower implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(Follower.class);

  /** Where the follower is in its life. */
  public enum State { FOLLOWING, STOPPED, FAILED }

  /** The replica's last commit: its lineage, the commit's watermark, and the commit record's offset. */
  public record Position(String replicaVersion, String watermark, long offset) {
    static Position of(ReplicaState s) {
      return new Position(s.replicaVersion(), s.watermark(), s.offset());
    }

    /** Whether the replica has applied the commit at {@code watermark} (or a later one). */
    public boolean covers(Watermark watermark) {
      return this.watermark != null && Watermark.parse(this.watermark).compareTo(watermark) >= 0;
    }
  }

  /** Told, on the follower's thread, after each commit of the replica (keep it short). */
  @FunctionalInterface
  public interface CommitListener {
    void committed(Position position);
  }

  private final FollowerConfig config;
  private final ChangeLogAdmin view;
  private final ReplicaFollowing replica;
  private final KafkaConsumer<byte[], byte[]> consumer;
  private final TopicPartition log;
  private final Thread thread;
  private final List<CommitListener> listeners = new CopyOnWriteArrayList<>();
  private final CountDownLatch ended = new CountDownLatch(1);
  private final Object progress = new Object();
  private volatile Position position;
  private volatile State state = State.FOLLOWING;
  private volatile Throwable failure;
  private volatile boolean running = true;
  private volatile long consumerLag = -1;
  private boolean assigned;
  /** What an assignment threw (a replica of another log, too far behind): the consumer wraps it. */
  private RuntimeException assignmentFailure;
  private final FollowerMetrics metrics;
  /** Written by the following thread, read by JMX threads (StageTimes locks). */
  private final StageTimes stages = ReplicaStages.create();
  /** Logs and counts verification outcomes (on the replica's verifier thread), and keeps a mismatch to fail on. */
  private final VerifyReport verify;

  private Follower(FollowerConfig config, ChangeLogAdmin view, ReplicaFollowing replica,
      KafkaConsumer<byte[], byte[]> consumer, TopicPartition log, VerifyReport verify) {
    this.config = config;
    this.verify = verify;
    this.view = view;
    this.replica = replica;
    this.consumer = consumer;
    this.log = log;
    this.position = Position.of(replica.position());
    this.thread = new Thread(this::run, "pg2lite-" + config.name);
    this.metrics = FollowerMetrics.register(config.name, new FollowerMetrics.Figures(() -> state.name(),
        () -> position.watermark(), () -> position.offset(), this::lag, replica::fullSince,
        () -> replica.lineageFigures().strandedSince(), this::snapshotFailingSince,
        () -> replica.restoredFrom().orElse(-1), stages, verify));
  }

  /** {@link #start(FollowerConfig)} from settings as a properties file or flags give them. */
  public static Follower start(Map<String, String> settings) throws InterruptedException {
    return start(new FollowerConfig(settings));
  }

  /**
   * Opens the replica (restoring it first when its file is missing and a snapshot store is set)
   * and starts following. Returns once the replica file is in place and the follower's thread runs.
   *
   * @throws IllegalStateException naming the setting when the topic cannot be followed (missing,
   *     several partitions, Kafka unreachable)
   * @throws io.pg2lite.replica.follow.ReplicaWriterLock.InUse when another writer holds the replica
   */
  public static Follower start(FollowerConfig config) throws InterruptedException {
    ChangeLogAdmin view = new ChangeLogAdmin(config.bootstrapServers, config.kafkaClientProps);
    Optional<String> problem = view.problem(config.topic);
    if (problem.isPresent()) {
      throw new IllegalStateException("follower " + config.name + " cannot follow " + FollowerConfig.TOPIC_CONFIG
          + " = " + config.topic + ": " + problem.get());
    }
    TopicPartition log = new TopicPartition(config.topic, 0);
    KafkaConsumer<byte[], byte[]> consumer = new KafkaConsumer<>(consumerProps(config), new ByteArrayDeserializer(),
        new ByteArrayDeserializer());
    VerifyReport verify = new VerifyReport(config.verifyMismatch);
    ReplicaFollowing replica;
    try {
      replica = ReplicaFollowing.open(FollowerSettings.of(config).withVerify(verify), view, config.topic, 0,
          (topic, partition, offset) -> consumer.seek(new TopicPartition(topic, partition), offset), Duration.ZERO);
    } catch (RuntimeException | InterruptedException e) {
      consumer.close(Duration.ZERO);
      throw e;
    }
    Follower f = new Follower(config, view, replica, consumer, log, verify);
    replica.restoredFrom().ifPresent(o -> LOG.info("Follower {}: replica {} restored from the snapshot at offset {}",
        config.name, config.replica.replicaPath, o));
    f.thread.start();
    return f;
  }

  static Map<String, Object> consumerProps(FollowerConfig config) {
    Map<String, Object> p = new java.util.HashMap<>(config.kafkaClientProps);
    p.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, config.bootstrapServers);
    p.put(ConsumerConfig.GROUP_ID_CONFIG, config.groupId);
    p.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
    p.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false");
    p.putIfAbsent(ConsumerConfig.CLIENT_ID_CONFIG, "pg2lite-" + config.name);
    p.putIfAbsent(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest"); // never used: every assignment seeks
    p.putIfAbsent(ConsumerConfig.MAX_PARTITION_FETCH_BYTES_CONFIG, 8 * 1024 * 1024);
    return p;
  }

  private void run() {
    long nextCommitAt = System.currentTimeMillis() + config.commitIntervalMs;
    try {
      consumer.subscribe(List.of(config.topic), new Assignment());
      while (running) {
        org.apache.kafka.clients.consumer.ConsumerRecords<byte[], byte[]> polled;
        try {
          polled = consumer.poll(Duration.ofMillis(config.pollTimeoutMs));
        } catch (WakeupException e) {
          break;
        }
        if (!polled.isEmpty()) {
          apply(polled.records(log));
        }
        Optional<String> mismatch = verify.mismatch();
        if (mismatch.isPresent()) {
          throw new IllegalStateException(mismatch.get());
        }
        if (assigned) {
          OptionalLong lag = consumer.currentLag(log);
          consumerLag = lag.isPresent() ? lag.getAsLong() : consumerLag;
        }
        if (System.currentTimeMillis() >= nextCommitAt) {
          commitPosition(false);
          nextCommitAt = System.currentTimeMillis() + config.commitIntervalMs;
        }
      }
      replica.abort();
      commitPosition(true);
      state = State.STOPPED;
    } catch (WakeupException e) {
      replica.abort();
      state = State.STOPPED;
    } catch (Throwable t) {
      failure = assignmentFailure != null ? assignmentFailure : t;
      state = State.FAILED;
      LOG.error("Follower {} stopped: {}", config.name, failure.getMessage(), failure);
      try {
        replica.abort();
      } catch (RuntimeException ignored) {
        // the replica rolls back on close anyway
      }
    } finally {
      try {
        consumer.close(Duration.ofSeconds(5));
      } catch (RuntimeException e) {
        LOG.warn("Follower {}: closing the consumer: {}", config.name, e.toString());
      }
      try {
        replica.close();
      } catch (ReplicaException | RuntimeException e) {
        LOG.warn("Follower {}: closing the replica: {}", config.name, e.toString());
      }
      synchronized (progress) {
        progress.notifyAll();
      }
      ended.countDown(); // the MBean stays until close(): a FAILED follower shows it
    }
  }

  private void apply(List<ConsumerRecord<byte[], byte[]>> records) throws InterruptedException {
    Instant fetched = Instant.now();
    long fetchedNanos = System.nanoTime();
    List<ChangeLogRecord> batch = new ArrayList<>(records.size());
    for (ConsumerRecord<byte[], byte[]> r : records) {
      batch.add(ConsumerRecords.of(r));
    }
    ReplicaFollowing.Batch done;
    try {
      done = replica.apply(batch, e -> { });
    } catch (ReplicaFollowing.RetryLater retry) {
      LOG.info("Follower {}: {}; reading again from offset {} in {} ms", config.name, retry.getMessage(),
          replica.nextOffset(), retry.waitMs());
      Thread.sleep(retry.waitMs());
      consumer.seek(log, replica.nextOffset());
      return;
    }
    if (done.committed()) {
      ReplicaStages.record(stages, fetched, fetchedNanos, done.commitTimes(), System.nanoTime());
      Position p = Position.of(replica.position());
      position = p;
      synchronized (progress) {
        progress.notifyAll();
      }
      for (CommitListener l : listeners) {
        try {
          l.committed(p);
        } catch (RuntimeException e) {
          LOG.warn("Follower {}: a commit listener failed: {}", config.name, e.toString(), e);
        }
      }
    }
  }

  /** Commits the replica's position (or the stranded mark) to the group: a hint for tools, and the mark's channel. */
  private void commitPosition(boolean sync) {
    if (!assigned) {
      return;
    }
    Optional<StrandedReplica> stranded = replica.strandedMark();
    ReplicaState s = replica.position();
    OffsetAndMetadata at;
    if (stranded.isPresent()) {
      at = new OffsetAndMetadata(stranded.get().needs(), stranded.get().metadata());
    } else if (!s.isEmpty()) {
      at = new OffsetAndMetadata(s.offset() + 1);
    } else {
      return;
    }
    try {
      if (sync) {
        consumer.commitSync(Map.of(log, at), Duration.ofSeconds(5));
      } else {
        consumer.commitAsync(Map.of(log, at), (offsets, e) -> {
          if (e != null) {
            LOG.debug("Follower {}: committing its position failed (retried next time): {}", config.name, e.toString());
          }
        });
      }
    } catch (RuntimeException e) {
      LOG.info("Follower {}: committing its position failed: {}", config.name, e.toString());
    }
  }

  /** Every assignment seeks to the record after the replica's last commit; a revocation rolls back. */
  private final class Assignment implements ConsumerRebalanceListener {
    @Override
    public void onPartitionsAssigned(Collection<TopicPartition> partitions) {
      for (TopicPartition tp : partitions) {
        try {
          consumer.seek(tp, replica.startingOffset(tp.topic(), tp.partition()));
        } catch (RuntimeException e) {
          assignmentFailure = e;
          throw e;
        }
      }
      assigned = partitions.contains(log);
    }

    @Override
    public void onPartitionsRevoked(Collection<TopicPartition> partitions) {
      replica.abort();
      assigned = false;
    }
  }

  /** The replica's last commit. */
  public Position position() {
    return position;
  }

  /** Records of the change log not read yet, as the consumer sees it; -1 before the first assignment. */
  public long lag() {
    return consumerLag;
  }

  /** The offset of the snapshot the replica was restored from at start, if it was. */
  public OptionalLong restoredFrom() {
    return replica.restoredFrom();
  }

  /**
   * Since when taking snapshots has failed (epoch ms; the store unreachable), -1 while they
   * succeed or when the follower takes none. Following goes on meanwhile.
   */
  public long snapshotFailingSince() {
    return replica.snapshotFigures().map(f -> f.failingSince()).orElse(-1L);
  }

  public State state() {
    return state;
  }

  /** What ended a {@link State#FAILED} follower. */
  public Optional<Throwable> failure() {
    return Optional.ofNullable(failure);
  }

  public void addListener(CommitListener listener) {
    listeners.add(listener);
  }

  public void removeListener(CommitListener listener) {
    listeners.remove(listener);
  }

  /**
   * Blocks until the replica has applied the commit at {@code watermark} or a later one (a
   * watermark the change log carries, or one of another replica's {@link #position()}).
   *
   * @return false when {@code timeout} passed first
   * @throws IllegalStateException when the follower failed or stopped before
   */
  public boolean awaitWatermark(String watermark, Duration timeout) throws InterruptedException {
    return await(Watermark.parse(watermark), timeout);
  }

  /**
   * Blocks until the replica has applied a commit whose LSN is {@code lsn} or later: read your
   * own writes by passing your transaction's commit LSN (docs/follower.md, "Reading your own
   * writes").
   */
  public boolean awaitLsn(String lsn, Duration timeout) throws InterruptedException {
    return await(Watermark.fromLsn(lsn), timeout);
  }

  private boolean await(Watermark target, Duration timeout) throws InterruptedException {
    long deadline = System.nanoTime() + timeout.toNanos();
    synchronized (progress) {
      while (!position.covers(target)) {
        if (state != State.FOLLOWING) {
          throw new IllegalStateException("follower " + config.name + " is " + state + failure().map(
              f -> ": " + f.getMessage()).orElse("") + "; its replica is at " + position.watermark());
        }
        long left = deadline - System.nanoTime();
        if (left <= 0) {
          return false;
        }
        progress.wait(Math.max(1, left / 1_000_000));
      }
      return true;
    }
  }

  /** Waits until the follower has ended (stopped or failed). */
  public void awaitEnd() throws InterruptedException {
    ended.await();
  }

  /** Stops following: what is not committed rolls back, the position is committed, the replica closed. */
  @Override
  public void close() {
    running = false;
    consumer.wakeup();
    try {
      if (Thread.currentThread() != thread) {
        ended.await();
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    metrics.close();
  }

  public FollowerConfig config() {
    return config;
  }

  /** Where the change log is, for status lines. */
  ChangeLogAdmin view() {
    return view;
  }
}
