package io.pg2lite.replica.follow;

import io.pg2lite.connect.kafka.ChangeLogView;
import io.pg2lite.connect.failure.Failures;
import io.pg2lite.connect.failure.Healing;
import io.pg2lite.connect.kafka.StrandedReplica;
import io.pg2lite.protocol.message.ChangeLogEntry;
import io.pg2lite.protocol.message.Commit;
import io.pg2lite.replica.ReplicaException;
import io.pg2lite.replica.apply.LogContinuity;
import io.pg2lite.replica.figures.LineageFigures;
import io.pg2lite.replica.figures.SnapshotFigures;
import io.pg2lite.replica.file.ReplicaState;
import io.pg2lite.replica.lineage.ChangeLogRecord;
import io.pg2lite.replica.lineage.LineageEvents;
import io.pg2lite.replica.lineage.ReplicaLineages;
import io.pg2lite.replica.space.FullReplicaRetries;
import io.pg2lite.replica.space.ReplicaSpace;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A replica following its change log: the sink task and a follower each feed it the records their
 * reader delivers, and it keeps the guarantees of both in one place.
 *
 * <ul>
 *   <li><b>Catch-up by offset.</b> The replica stores the offset of its last applied commit
 *       record; {@link #startingOffset} tells the reader to go on after it, whatever a consumer
 *       group says. A reader never commits a group offset beyond {@link #position}.
 *   <li><b>Atomic transactions.</b> Records go to the lineages ({@link ReplicaLineages}), which
 *       apply an upstream transaction in one SQLite transaction; {@link #apply} commits what is
 *       complete at the end of each batch, and a failed batch rolls back to the last commit.
 *   <li><b>Continuity.</b> Every record must follow the one before it ({@link LogContinuity});
 *       a gap is permanent, unless its records were deleted and {@code resync.auto} is on: then
 *       the replica is stranded (readers keep it as it is) and {@link #strandedMark} asks the
 *       source for a new lineage.
 *   <li><b>Faults.</b> A transient fault ({@link Failures}) or a full replica
 *       ({@link FullReplicaRetries}) makes {@link #apply} throw {@link RetryLater}, after rolling
 *       back: the reader waits, goes back to {@link #nextOffset} and reads again. Transient faults
 *       lasting past {@code retry.timeout.ms}, and every permanent fault, are thrown as they are.
 * </ul>
 *
 * <p>One writer per file ({@link ReplicaWriterLock}), taken before anything touches the file.
 * Not thread-safe: the reader's thread drives it; the figures may be read from any thread.
 */
public final class ReplicaFollowing implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(ReplicaFollowing.class);
  private final FollowSettings settings;
  private final ChangeLogView view;
  private final ReplicaWriterLock lock;
  private final ReplicaLineages lineage;
  private final Optional<ReplicaSnapshots> snapshots;
  private final ReplicaSpace space;
  private final Healing healing;
  private final FullReplicaRetries full;
  /** What the start-up restore found, for the too-far-behind message; "" when it was not needed. */
  private final String restoreNote;
  private final OptionalLong restoredFrom;
  /** Bytes of the records applied since the replica's last commit: what a full replica must make room for. */
  private long uncommittedBytes;
  /** The commit {@link #uncommittedBytes} counts from; null once a rollback starts the count again. */
  private ReplicaState uncommittedSince;

  private ReplicaFollowing(FollowSettings settings, ChangeLogView view, ReplicaWriterLock lock,
      Optional<ReplicaSnapshots> snapshots, ReplicaStartup.Opened opened, ReplicaLineages.Seeker seeker) {
    this.settings = settings;
    this.view = view;
    this.lock = lock;
    this.snapshots = snapshots;
    this.restoreNote = opened.restoreNote();
    this.restoredFrom = opened.restoredFrom();
    this.space = new ReplicaSpace(settings.replicaPath(), FollowSettings.MAX_SIZE, settings.replica().maxSizeBytes(),
        settings.wal());
    this.full = new FullReplicaRetries(space, settings.retryBackoffMaxMs(), LOG, System::currentTimeMillis);
    this.healing = Healing.forRetries("The replica " + settings.replicaPath(), settings.retryBackoffMaxMs(),
        settings.retryTimeoutMs(), FollowSettings.RETRY_TIMEOUT, LOG);
    this.lineage = ReplicaLineages.open(settings.replicaPath(), settings.replica(), opened.replica(), opened.applier(),
        seeker, snapshots.<LineageEvents>map(sn -> sn).orElse(LineageEvents.NONE));
  }

  /**
   * Takes the replica's writer lock, restores it from the newest usable snapshot when its file is
   * missing (with a snapshot store), opens it, and starts taking snapshots.
   *
   * @param topic the change log's topic, when known before the reader is assigned (it must be, with
   *     a snapshot store: the restore comes first)
   * @param seeker moves the reader when a new lineage's build needs records again
   * @param lockWait how long to wait for another writer to let go (a task restarting in place)
   * @throws ReplicaWriterLock.InUse when another writer holds the replica
   */
  public static ReplicaFollowing open(FollowSettings settings, ChangeLogView view, String topic, int partition,
      ReplicaLineages.Seeker seeker, Duration lockWait) throws InterruptedException {
    ReplicaWriterLock lock = ReplicaWriterLock.acquire(settings.replicaPath(), settings.name(), lockWait);
    Optional<ReplicaSnapshots> snapshots = Optional.empty();
    try {
      if (settings.snapshots().isPresent() && topic == null) {
        throw new IllegalArgumentException("a snapshot store needs the change log's topic named before it is read");
      }
      snapshots = ReplicaSnapshots.of(settings, view, topic, partition);
      ReplicaStartup.Opened opened = new ReplicaStartup(settings).open(snapshots);
      ReplicaFollowing following = new ReplicaFollowing(settings, view, lock, snapshots, opened, seeker);
      snapshots.ifPresent(ReplicaSnapshots::start);
      return following;
    } catch (RuntimeException e) {
      snapshots.ifPresent(ReplicaSnapshots::close);
      lock.close();
      throw e;
    }
  }

  /**
   * Where the reader of {@code topic}-{@code partition} starts: after the replica's last commit
   * (at 0 for a new replica), when the topic still holds that record or when that cannot be told
   * (the records' sequence numbers then catch a gap). When it is gone, without
   * {@code resync.auto} the replica is too far behind ({@link TooFarBehind}); with it the replica
   * is stranded and the reader starts at the log start, where a new lineage's begin will be found.
   * Anything not committed is rolled back first.
   *
   * @throws IllegalStateException when the replica holds another change log
   */
  public long startingOffset(String topic, int partition) {
    lineage.abort();
    ReplicaState state = lineage.position();
    if (!state.isEmpty() && !(topic.equals(state.topic()) && partition == state.partition())) {
      throw new IllegalStateException("replica " + settings.replicaPath() + " holds the log of " + state.topic() + "-"
          + state.partition() + " but " + settings.name() + " reads " + topic + "-" + partition
          + "; a replica follows one change log");
    }
    long next = state.isEmpty() ? 0L : state.offset() + 1;
    String why = state.isEmpty() ? "a new replica replays the whole log"
        : "after its last commit at watermark " + state.watermark();
    OptionalLong start = view.logStart(topic, partition);
    if (start.isEmpty()) {
      if (view != ChangeLogView.UNKNOWN) {
        LOG.warn("Cannot read the log start of {}-{} now; relying on the records' sequence numbers", topic, partition);
      }
      return next;
    }
    if (next >= start.getAsLong()) {
      return next;
    }
    String gone = "it needs " + topic + "-" + partition + " from offset " + next + " (" + why + "), but the topic now "
        + "starts at offset " + start.getAsLong() + ": the records in between were deleted";
    Optional<String> version = Optional.ofNullable(state.isEmpty() ? null : state.replicaVersion());
    if (version.isEmpty() && settings.resyncAuto()) {
      try {
        version = view.newestReplicaVersion(topic, partition);
      } catch (java.io.IOException e) {
        version = Optional.empty();
      }
    }
    if (!settings.resyncAuto() || version.isEmpty()) {
      throw new TooFarBehind("replica too far behind, resync: " + gone + " by retention. Rebuild the replica from a "
          + "copy of a current replica, or raise the topic's retention." + restoreNote);
    }
    lineage.strand(gone + restoreNote, version.get());
    return start.getAsLong();
  }

  /** The offset to read from again after a {@link RetryLater}: the record after the replica's last commit. */
  public long nextOffset() {
    ReplicaState state = lineage.position();
    return state.isEmpty() ? 0L : state.offset() + 1;
  }

  /**
   * What one batch did: records applied, upstream transactions among them, whether the replica
   * committed, and the Postgres commit times of the live transactions among them, in log order
   * (backfill transactions have none), for the adapters' latency stages.
   */
  public record Batch(long applied, long transactions, List<Instant> commitTimes, boolean committed) {
    /** The last live transaction's commit time; null when the batch held none. */
    public Instant lastCommitTime() {
      return commitTimes.isEmpty() ? null : commitTimes.get(commitTimes.size() - 1);
    }
  }

  /**
   * Applies a batch of records, in offset order, and commits what is complete.
   *
   * @param applied told of each message applied (a split message once, with its last part)
   * @throws RetryLater after a transient fault or a full replica, rolled back: read again from
   *     {@link #nextOffset} after the wait
   * @throws RuntimeException a permanent fault (bad input, a gap) or one that lasted too long
   */
  public Batch apply(Iterable<ChangeLogRecord> records, Consumer<ChangeLogEntry> applied) {
    full.settle();
    long transactions = 0;
    long count = 0;
    List<Instant> commitTimes = new ArrayList<>();
    ReplicaState before = lineage.position();
    try {
      for (ChangeLogRecord r : records) {
        countUncommitted(r.value());
        ChangeLogEntry entry = accept(r);
        if (entry == null) {
          continue; // passed over, or a part of a split message: applied with its last part
        }
        count++;
        applied.accept(entry);
        if (entry.message() instanceof Commit c) {
          transactions++;
          if (c.commitTime() != null) {
            commitTimes.add(c.commitTime());
          }
        }
      }
      lineage.flush();
    } catch (RuntimeException e) {
      long pending = uncommittedBytes;
      abort();
      throw transientOrPermanent(e, pending);
    }
    if (count > 0) {
      healing.succeeded(); // an empty batch proves nothing about a fault that is still there
    }
    boolean committed = lineage.position() != before;
    if (committed) {
      full.committed();
    }
    return new Batch(count, transactions, commitTimes, committed);
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
      if (!settings.resyncAuto() || !gap.recordsGone()) {
        throw gap;
      }
      ReplicaState at = lineage.position();
      lineage.strand(gap.gap(), r.replicaVersion() != null ? r.replicaVersion() : at.replicaVersion());
      uncommittedSince = null;
      return lineage.accept(r);
    }
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

  /**
   * After a failed batch (rolled back), with {@code pendingBytes} of records applied since the
   * replica's last commit: a full replica, or a transient fault, becomes a {@link RetryLater}
   * after a backoff; anything else, or transient faults lasting past the retry timeout, is
   * returned to be thrown as is.
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
    return new RetryLater(wait, e);
  }

  /** Rolls back what is not committed (a transaction open over several batches, a failed batch). */
  public void abort() {
    lineage.abort();
    uncommittedSince = null;
  }

  /** The replica's last commit: what a reader may report as consumed. */
  public ReplicaState position() {
    return lineage.position();
  }

  /**
   * The mark a reader commits instead of its position while the replica is stranded: it asks a
   * source with {@code resync.auto} for a new lineage.
   */
  public Optional<StrandedReplica> strandedMark() {
    return lineage.strandedMark();
  }

  public LineageFigures lineageFigures() {
    return lineage;
  }

  public Optional<SnapshotFigures> snapshotFigures() {
    return snapshots.map(s -> s);
  }

  /** Since when the replica has been full, in epoch ms; -1 when it is not. */
  public long fullSince() {
    return full.fullSince();
  }

  /** Bytes free for the replica: on its file system, or below {@code replica.max.size.bytes}. */
  public long usableBytes() {
    return space.usableBytes();
  }

  /** The offset of the snapshot the replica was restored from at start-up, if it was. */
  public OptionalLong restoredFrom() {
    return restoredFrom;
  }

  public FollowSettings settings() {
    return settings;
  }

  /** Stops the snapshots, closes the replica (rolling back what is not committed), lets go of the file. */
  @Override
  public void close() throws ReplicaException {
    try {
      snapshots.ifPresent(ReplicaSnapshots::close);
      lineage.close();
    } finally {
      lock.close();
    }
  }

  /** A transient fault or a full replica, rolled back: read again from {@link #nextOffset} after {@link #waitMs}. */
  public static final class RetryLater extends RuntimeException {
    private static final long serialVersionUID = 1L;
    private final long waitMs;

    RetryLater(long waitMs, RuntimeException cause) {
      super(cause.getMessage(), cause);
      this.waitMs = waitMs;
    }

    public long waitMs() {
      return waitMs;
    }
  }

  /** The records the replica needs next were deleted from the topic, and no new lineage is asked for. */
  public static final class TooFarBehind extends RuntimeException {
    private static final long serialVersionUID = 1L;

    TooFarBehind(String message) {
      super(message);
    }
  }
}
