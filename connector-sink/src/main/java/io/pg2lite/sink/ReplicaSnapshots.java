package io.pg2lite.sink;

import io.pg2lite.protocol.watermark.Watermark;
import io.pg2lite.sink.config.SinkConfig;
import io.pg2lite.sink.kafka.ChangeLogAdmin;
import io.pg2lite.replica.lineage.LineageEvents;
import io.pg2lite.replica.figures.SnapshotFigures;
import io.pg2lite.replica.ReplicaException;
import io.pg2lite.replica.snapshot.DirectorySnapshotStore;
import io.pg2lite.replica.snapshot.SnapshotManifest;
import io.pg2lite.replica.snapshot.SnapshotRestorer;
import io.pg2lite.replica.snapshot.SnapshotSchedule;
import io.pg2lite.replica.snapshot.SnapshotStore;
import io.pg2lite.replica.snapshot.SnapshotTaker;
import java.io.IOException;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.connect.errors.ConnectException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The sink task's use of snapshots ({@code snapshot.dir}): a restore before the replica is opened
 * when its file is missing, a schedule of snapshots while the task runs, and the oldest offset a
 * new replica could start from, for the MBean ({@link SnapshotFigures}). The change log is the
 * topic {@code topics} names, partition 0 (ChangeLogTopics).
 *
 * <p>A new lineage ({@link LineageEvents}): while its replica is built, the schedule is held (the
 * published replica is frozen in the old lineage, the build incomplete); after the swap the
 * snapshots of older lineages are deleted, on the schedule's thread so that a snapshot under way
 * is published first and deleted with them, and the schedule goes on.
 */
final class ReplicaSnapshots implements SnapshotFigures, LineageEvents, AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(ReplicaSnapshots.class);
  private final SinkConfig config;
  private final ChangeLogAdmin admin;
  private final String connector;
  private final TopicPartition log;
  private final SnapshotStore store;
  private final SnapshotTaker taker;
  private SnapshotSchedule schedule;
  /** A new lineage is being built: no snapshots until it is swapped in. */
  private boolean held;
  private volatile long taken;
  private volatile long lastOffset = -1;
  private volatile long lastBytes;
  private volatile long lastMillis;
  private volatile long restoredOffset = -1;

  private ReplicaSnapshots(SinkConfig config, ChangeLogAdmin admin, String connector, TopicPartition log) {
    this.config = config;
    this.admin = admin;
    this.connector = connector;
    this.log = log;
    this.store = new DirectorySnapshotStore(config.snapshotDir);
    this.taker = new SnapshotTaker(config.replicaPath, store, config.snapshotKeep, config.busyTimeoutMs,
        Clock.systemUTC());
  }

  /**
   * Empty when snapshots are off.
   *
   * @param log the change log ({@code topics}, partition 0)
   * @throws ConnectException when snapshots are on but {@code topics} does not name the change log
   */
  static Optional<ReplicaSnapshots> of(SinkConfig config, ChangeLogAdmin admin, String connector,
      Optional<TopicPartition> log) {
    if (config.snapshotDir == null) {
      return Optional.empty();
    }
    return Optional.of(new ReplicaSnapshots(config, admin, connector, log.orElseThrow(() -> new ConnectException(
        SinkConfig.SNAPSHOT_DIR_CONFIG + " needs 'topics' to name the change-log topic (one topic, not "
        + "topics.regex): a restore happens before Connect assigns the topic"))));
  }

  String describe() {
    return store.describe();
  }

  /**
   * Restores the newest usable snapshot when the replica file is missing or has applied nothing.
   *
   * @throws IOException when the store or Kafka cannot be read (the caller retries)
   */
  SnapshotRestorer.Outcome restoreIfMissing() throws IOException, ReplicaException {
    long t0 = System.nanoTime();
    SnapshotRestorer.Outcome out = new SnapshotRestorer(store, config.busyTimeoutMs).restoreIfMissing(
        config.replicaPath, log.topic(), log.partition(), new SnapshotRestorer.LogView() {
          @Override
          public long logStart() throws IOException {
            return ReplicaSnapshots.this.logStart();
          }

          @Override
          public Optional<String> replicaVersion() throws IOException {
            try {
              return admin.replicaVersion(log);
            } catch (RuntimeException e) {
              throw new IOException("cannot read the tail of " + log + ": " + e.getMessage(), e);
            }
          }
        });
    out.restored().ifPresent(m -> restoredOffset = m.offset());
    out.restored().ifPresent(m -> LOG.info("Replica {} restored from snapshot {} of {} (offset {}, watermark {}, {} "
        + "bytes) in {} ms; catching up from offset {}", config.replicaPath, m.id(), store.describe(), m.offset(),
        m.watermark(), m.bytes(), (System.nanoTime() - t0) / 1_000_000, m.offset() + 1));
    return out;
  }

  private long logStart() throws IOException {
    try {
      OptionalLong start = admin.logStart(log);
      if (start.isEmpty()) {
        throw new IOException("cannot read the log start of " + log + " at " + config.kafkaBootstrapServers);
      }
      return start.getAsLong();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IOException("interrupted reading the log start of " + log, e);
    }
  }

  /** Starts taking snapshots every {@code snapshot.interval.ms}. */
  void start() {
    schedule = new SnapshotSchedule(connector, taker, Duration.ofMillis(config.snapshotIntervalMs), this::taken);
    schedule.hold(held);
  }

  @Override
  public void building(String version) {
    hold(true);
  }

  @Override
  public void abandoned(String version) {
    hold(false);
  }

  /** Deletes the snapshots of lineages older than {@code published}, then takes snapshots again. */
  @Override
  public void swapped(String retired, String published) {
    Runnable retire = () -> {
      try {
        taker.retire(log.topic(), log.partition(), v -> older(v, published, retired));
      } catch (IOException | RuntimeException e) {
        LOG.warn("Cannot delete the snapshots of replica version {} from {}: {}; no new replica restores them (they "
            + "are of another lineage than the log), delete them by hand", retired, store.describe(), e.toString());
      }
    };
    if (schedule != null) {
      schedule.execute(retire);
    } else {
      retire.run();
    }
    hold(false);
  }

  /**
   * Whether a snapshot of replica version {@code v} belongs to a lineage before {@code published}:
   * replica versions are watermarks, and a new lineage starts above the one it replaces. A version
   * that is not a watermark is retired only when it is the one just replaced.
   */
  static boolean older(String v, String published, String retired) {
    try {
      return Watermark.parse(v).compareTo(Watermark.parse(published)) < 0;
    } catch (IllegalArgumentException e) {
      return v.equals(retired);
    }
  }

  private void hold(boolean hold) {
    held = hold;
    if (schedule != null) {
      schedule.hold(hold);
    }
  }

  /** A snapshot was published (the schedule's thread; the figures are read by JMX threads). */
  private synchronized void taken(SnapshotSchedule.Taken t) {
    lastOffset = t.manifest().offset();
    lastBytes = t.manifest().bytes();
    lastMillis = t.millis();
    taken++;
  }

  @Override
  public long taken() {
    return taken;
  }

  @Override
  public long lastOffset() {
    return lastOffset;
  }

  @Override
  public long lastBytes() {
    return lastBytes;
  }

  @Override
  public long lastMillis() {
    return lastMillis;
  }

  @Override
  public long restoredOffset() {
    return restoredOffset;
  }

  /** See {@link io.pg2lite.sink.metrics.SinkMetricsMBean#getOldestRestorableOffset}. */
  @Override
  public long oldestRestorable() {
    try {
      long start = logStart();
      if (start == 0) {
        return 0;
      }
      List<SnapshotManifest> all = store.list(log.topic(), log.partition(), (n, why) -> { });
      return all.stream().filter(m -> m.coveredBy(start)).mapToLong(SnapshotManifest::offset).min().orElse(-1);
    } catch (IOException | RuntimeException e) {
      return -1;
    }
  }

  @Override
  public void close() {
    if (schedule != null) {
      schedule.close();
    }
  }
}
