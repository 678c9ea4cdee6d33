package io.pg2lite.replica.follow;

import io.pg2lite.connect.kafka.ChangeLogView;
import io.pg2lite.protocol.watermark.Watermark;
import io.pg2lite.replica.lineage.LineageEvents;
import io.pg2lite.replica.figures.SnapshotFigures;
import io.pg2lite.replica.ReplicaException;
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
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A replica's use of its snapshot store (the sink task's and a follower's alike): a restore before
 * the replica is opened when its file is missing, a schedule of snapshots while it follows (none
 * when {@code snapshot.interval.ms} is 0: a follower restores from the sink's snapshots without
 * taking its own), and the oldest offset a new replica could start from, for the metrics
 * ({@link SnapshotFigures}). The change log is one partition, known before anything is read: the
 * restore comes first.
 *
 * <p>A new lineage ({@link LineageEvents}): while its replica is built, the schedule is held (the
 * published replica is frozen in the old lineage, the build incomplete); after the swap the
 * snapshots of older lineages are deleted, on the schedule's thread so that a snapshot under way
 * is published first and deleted with them, and the schedule goes on.
 */
public final class ReplicaSnapshots implements SnapshotFigures, LineageEvents, AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(ReplicaSnapshots.class);
  private final FollowSettings config;
  private final ChangeLogView view;
  private final String topic;
  private final int partition;
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
  private volatile long failingSince = -1;

  private ReplicaSnapshots(FollowSettings config, SnapshotStore store, ChangeLogView view, String topic,
      int partition) {
    this.config = config;
    this.view = view;
    this.topic = topic;
    this.partition = partition;
    this.store = store;
    this.taker = new SnapshotTaker(config.replicaPath(), store, config.snapshotKeep(), config.replica().busyTimeoutMs(),
        Clock.systemUTC());
  }

  /** Empty when snapshots are off (no store). */
  public static Optional<ReplicaSnapshots> of(FollowSettings config, ChangeLogView view, String topic, int partition) {
    return config.snapshots().map(store -> new ReplicaSnapshots(config, store, view, topic, partition));
  }

  public String describe() {
    return store.describe();
  }

  /**
   * Restores the newest usable snapshot when the replica file is missing or has applied nothing.
   *
   * @throws IOException when the store or Kafka cannot be read (the caller retries)
   */
  public SnapshotRestorer.Outcome restoreIfMissing() throws IOException, ReplicaException {
    long t0 = System.nanoTime();
    SnapshotRestorer.Outcome out = new SnapshotRestorer(store, config.replica().busyTimeoutMs()).restoreIfMissing(
        config.replicaPath(), topic, partition, new SnapshotRestorer.LogView() {
          @Override
          public long logStart() throws IOException {
            return ReplicaSnapshots.this.logStart();
          }

          @Override
          public Optional<String> replicaVersion() throws IOException {
            return view.newestReplicaVersion(topic, partition);
          }
        });
    out.restored().ifPresent(m -> restoredOffset = m.offset());
    out.restored().ifPresent(m -> LOG.info("Replica {} restored from snapshot {} of {} (offset {}, watermark {}, {} "
        + "bytes) in {} ms; catching up from offset {}", config.replicaPath(), m.id(), store.describe(), m.offset(),
        m.watermark(), m.bytes(), (System.nanoTime() - t0) / 1_000_000, m.offset() + 1));
    return out;
  }

  private long logStart() throws IOException {
    OptionalLong start = view.logStart(topic, partition);
    if (start.isEmpty()) {
      throw new IOException("cannot read the log start of " + view.describe());
    }
    return start.getAsLong();
  }

  /** Starts taking snapshots every {@code snapshot.interval.ms}; none when it is 0. */
  public void start() {
    if (config.snapshotIntervalMs() <= 0) {
      return;
    }
    schedule = new SnapshotSchedule(config.name(), taker, Duration.ofMillis(config.snapshotIntervalMs()), this::taken,
        this::failed);
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
        taker.retire(topic, partition, v -> older(v, published, retired));
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
    failingSince = -1;
  }

  /** A snapshot failed (the schedule's thread): the figure shows it until one succeeds. */
  private void failed(Exception e) {
    if (failingSince < 0) {
      failingSince = System.currentTimeMillis();
    }
  }

  @Override
  public long failingSince() {
    return failingSince;
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

  /** The lowest offset of a snapshot a new replica could start from now; -1 when none. */
  @Override
  public long oldestRestorable() {
    try {
      long start = logStart();
      if (start == 0) {
        return 0;
      }
      List<SnapshotManifest> all = store.list(topic, partition, (n, why) -> { });
      return all.stream().filter(m -> m.coveredBy(start)).mapToLong(SnapshotManifest::offset).min().orElse(-1);
    } catch (IOException | RuntimeException e) {
      return -1;
    }
  }

  /** Stops the schedule, then lets go of the store (an object store's client). */
  @Override
  public void close() {
    if (schedule != null) {
      schedule.close();
    }
    if (store instanceof AutoCloseable c) {
      try {
        c.close();
      } catch (Exception e) {
        LOG.debug("Closing the snapshot store {}: {}", store.describe(), e.toString());
      }
    }
  }
}
