package io.pg2lite.replica.lineage;

import io.pg2lite.protocol.codec.ChangeLogCodec;
import io.pg2lite.protocol.message.Begin;
import io.pg2lite.protocol.message.ChangeLogEntry;
import io.pg2lite.protocol.message.NewLineage;
import io.pg2lite.protocol.message.Rollback;
import io.pg2lite.protocol.watermark.Watermark;
import io.pg2lite.replica.apply.ApplyException;
import io.pg2lite.replica.apply.ReplicaApplier;
import io.pg2lite.replica.figures.LineageFigures;
import io.pg2lite.replica.Replica;
import io.pg2lite.replica.ReplicaException;
import io.pg2lite.replica.ReplicaSettings;
import io.pg2lite.replica.file.ReplicaState;
import io.pg2lite.replica.schema.TableCopies;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The replica at {@code replica.path} across lineages: which file each change-log record goes to.
 *
 * <p>Normally every record goes to the published replica. A record whose replica-version header
 * differs from the lineage being written is looked at first, before the continuity rule (which
 * would pass a recreated topic's records over by their low offsets):
 * <ul>
 *   <li>the begin (pos 0) of a transaction with {@code lineage} starts a build: a new replica
 *       in its own file ({@link LineageBuild}), whose position starts at that record; from then on
 *       records go to the build, and the published replica stays frozen at its last commit. A
 *       later lineage begin (the source resynced again) starts the build over. A lineage begin at
 *       or below the offsets taken is a recreated topic's when its watermark is above what is
 *       being written (a new lineage starts above every watermark of the old), else an older
 *       lineage's delivered again, passed over;
 *   <li>a {@code rollback} closes the open transaction whichever header it carries (the source
 *       closes the old lineage's open transaction as it starts the new one);
 *   <li>the begin of a first-start transaction that declares no lineage stops the task: the log
 *       does not say this lineage replaces the replica's (a slot recreated by hand, another
 *       source's log);
 *   <li>anything else at or below the offsets taken is a delivery again, passed over; above them,
 *       the lineage's begin was skipped (a topic deleted and created again starts at 0, below the
 *       offset the replica asked for): the reader is sent back to the log start to find it
 *       ({@link LineageSearch}), and the task fails naming what to do if it is gone.
 * </ul>
 * After each SQLite commit of the build (and at the end of each batch) it checks whether every
 * table is copied; then {@link ReplicaSwap} puts it in the published replica's place.
 *
 * <p>Invariants: at most one build; the published replica takes no record while one exists;
 * {@link #position()} is what a restart or a rewind resumes from: the build's last commit once it
 * has one, else the published replica's. A build that committed nothing does not survive a
 * rollback ({@link #abort}): the position is the published replica's, so its lineage's begin comes
 * again.
 *
 * <p>Not thread-safe, except the figures ({@link LineageFigures}) and {@link #position()}, which
 * JMX threads read.
 */
public final class ReplicaLineages implements LineageFigures, AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(ReplicaLineages.class);

  /** Moves the reader of the log: the records it hands over next start at {@code offset}. */
  @FunctionalInterface
  public interface Seeker {
    void seek(String topic, int partition, long offset);
  }

  private final ChangeLogCodec codec = new ChangeLogCodec();
  private final LineageFiles files;
  private final ReplicaSettings settings;
  private final ReplicaSwap swap;
  private final RetiredLineages retired = new RetiredLineages();
  private final Seeker seeker;
  private final LineageEvents events;
  private ReplicaFeed published;
  private LineageBuild build;
  private LineageSearch search;
  /** A search sent the reader back: the rest of the batch under way comes from before the seek. */
  private boolean passingBatch;
  private volatile ReplicaState position;
  private volatile String publishedVersion = "";
  private volatile String buildingVersion = "";
  private volatile Instant lastSwap;
  /** The lineage being written cannot go on (records it needs are gone); null otherwise. */
  private volatile Stranded stranded;

  private ReplicaLineages(Path path, ReplicaSettings settings, ReplicaFeed published, Seeker seeker,
      LineageEvents events) {
    this.files = new LineageFiles(path);
    this.settings = settings;
    this.swap = new ReplicaSwap(files, settings);
    this.published = published;
    this.seeker = seeker;
    this.events = events;
    moved();
  }

  /**
   * Takes over the published replica, opened at {@code path} with {@code settings}, and goes on
   * with the build a stopped task left beside it (swapped in at once when it is complete); other
   * leftovers are deleted ({@link LeftoverBuilds}).
   *
   * @throws LineageException when the files beside the replica cannot be read or put in order
   *     (the replica is closed then)
   */
  public static ReplicaLineages open(Path path, ReplicaSettings settings, Replica replica, ReplicaApplier applier,
      Seeker seeker, LineageEvents events) {
    ReplicaLineages lineages = new ReplicaLineages(path, settings, new ReplicaFeed(new ChangeLogCodec(), replica,
        applier), seeker, events);
    try {
      Optional<Path> left = LeftoverBuilds.sort(lineages.files, applier.committed(), settings.busyTimeoutMs());
      if (left.isPresent()) {
        lineages.resume(left.get());
      }
      return lineages;
    } catch (IOException | ReplicaException | RuntimeException e) {
      lineages.closeQuietly();
      throw e instanceof LineageException le ? le : new LineageException("Cannot sort out the lineage files beside "
          + path + ": " + e.getMessage(), e);
    }
  }

  private void resume(Path file) throws ReplicaException {
    build = LineageBuild.resume(settings, codec, files.versionOf(file), file);
    ReplicaState at = build.feed().committed();
    LOG.info("Resuming the build of replica version {} in {} from its last commit (offset {}, watermark {}); {} stays "
        + "at replica version {} until every table of the new lineage is copied", build.version(), file, at.offset(),
        at.watermark(), files.path(), publishedVersion);
    events.building(build.version());
    moved();
    swapIfComplete(at);
  }

  /**
   * Takes one record: applied to the replica it belongs to, passed over, or the start of a build.
   * Returns the applied entry (a split message's at its last part), null when nothing was applied.
   *
   * @throws ApplyException for a record that cannot be applied (decoding, protocol, SQLite), or a
   *     new lineage whose begin is gone from the topic
   * @throws io.pg2lite.replica.apply.LogContinuity.LogGapException when the record does not follow
   * @throws LineageException when a complete build cannot be put in place
   */
  public ChangeLogEntry accept(ChangeLogRecord r) {
    if (passingBatch) {
      return null;
    }
    if (search != null) {
      return searching(r);
    }
    Stranded s = stranded;
    if (s != null) {
      if (r.replicaVersion() == null || r.replicaVersion().equals(s.version())) {
        s.remind(files.path().toString());
        return null; // its lineage cannot go on: passed over until a new one begins
      }
      return foreign(r, writing(), s.version());
    }
    ReplicaFeed feed = writing();
    String mine = writingVersion();
    if (r.replicaVersion() != null && mine != null && !r.replicaVersion().equals(mine)) {
      return foreign(r, feed, mine);
    }
    return take(feed, r);
  }

  /** The end of a batch: complete upstream transactions are committed; a build may be complete. */
  public void flush() {
    passingBatch = false;
    if (search == null) {
      take(writing(), null);
    }
    retired.deleteDue(Instant.now());
  }

  /** Deletes the retired lineages' files whose grace has passed at {@code now}; returns them (for tests). */
  List<Path> deleteRetired(Instant now) {
    return retired.deleteDue(now);
  }

  /** The retired lineages' files still waiting for their grace to pass (for tests). */
  List<Path> retiredWaiting() {
    return retired.waiting();
  }

  /**
   * Rolls back everything not committed (a fault, a rebalance): a search ends, and a build that
   * committed nothing is given up; {@link #position()} is then where the reader must resume.
   */
  public void abort() {
    search = null;
    passingBatch = false;
    published.abort();
    if (build != null) {
      build.feed().abort();
      if (!build.committedAny()) {
        LineageBuild gone = build;
        discardBuild("it committed nothing before the rollback; it starts again from its lineage's begin");
        events.abandoned(gone.version());
      }
    }
    moved();
  }

  /**
   * The lineage being written cannot go on in this log ({@code resync.auto}): records it needs were
   * deleted and no snapshot restored it. What is not committed is rolled back; from now on its
   * records are passed over, the replica stays readable as it is, and {@link #strandedMark()} is
   * what the consumer group commits to ask for a new lineage. A new lineage's begin ends it.
   *
   * @param version the lineage that cannot go on: the one being written, or for an empty replica
   *     the one of the log it could not start
   */
  public void strand(String reason, String version) {
    abort();
    stranded = Stranded.begin(reason, version, position(), files.path().toString(), System::currentTimeMillis);
  }

  /** The mark the consumer group commits while stranded ({@link #strand}); empty otherwise. */
  public Optional<io.pg2lite.connect.kafka.StrandedReplica> strandedMark() {
    Stranded s = stranded;
    return s == null ? Optional.empty() : Optional.of(s.mark());
  }

  @Override
  public long strandedSince() {
    Stranded s = stranded;
    return s == null ? -1 : s.sinceMs();
  }

  /** Where the reader resumes: the build's last commit once it has one, else the published replica's. */
  public ReplicaState position() {
    return position;
  }

  /** Applies {@code r} (or, when null, only commits what is complete) and looks at what a commit changed. */
  private ChangeLogEntry take(ReplicaFeed feed, ChangeLogRecord r) {
    ReplicaState before = feed.committed();
    ChangeLogEntry e;
    if (r == null) {
      feed.flush();
      e = null;
    } else {
      e = feed.take(r);
    }
    // ReplicaApplier replaces its committed state object at every SQLite commit, and only then.
    boolean committed = feed.committed() != before;
    if (committed) {
      moved();
    }
    if ((committed || r == null) && build != null && feed == build.feed() && build.committedAny()
        && !feed.inTransaction()) {
      swapIfComplete(feed.committed()); // no SQLite transaction is open here: what it reads is committed
    }
    return e;
  }

  private ChangeLogEntry foreign(ChangeLogRecord r, ReplicaFeed feed, String mine) {
    ChangeLogEntry e = feed.decode(r);
    NewLineage lineage = newLineage(e);
    if (lineage != null) {
      if (r.offset() <= feed.lastOffset() && !e.watermark().isAfter(floor())) {
        return null; // an older lineage's begin, delivered again
      }
      return startBuild(r, e, lineage);
    }
    if (r.offset() <= feed.lastOffset()) {
      return null;
    }
    if (e.message() instanceof Rollback) {
      return feed.inTransaction() ? take(feed, r) : null;
    }
    LineageSearch lookBack = new LineageSearch(r, e, mine);
    if (lookBack.hopeless()) {
      throw lookBack.notFound(r);
    }
    startSearch(lookBack, feed);
    return null;
  }

  private static NewLineage newLineage(ChangeLogEntry e) {
    return e.pos() == 0 && e.message() instanceof Begin b ? b.lineage() : null;
  }

  private void startSearch(LineageSearch lookBack, ReplicaFeed feed) {
    take(feed, null);
    search = lookBack;
    passingBatch = true;
    ChangeLogRecord r = lookBack.trigger();
    LOG.info("Record {} belongs to replica version {}, but no begin of that lineage came before it (this replica is "
        + "of {}, at offset {}): looking for the begin that starts it from the log start (a topic deleted and created "
        + "again, or a consumer reset past it)", r.where(), r.replicaVersion(), writingVersion(), feed.lastOffset());
    seeker.seek(r.topic(), r.partition(), 0);
  }

  private ChangeLogEntry searching(ChangeLogRecord r) {
    if (search.exhausted(r.offset())) {
      LineageSearch failed = search;
      search = null;
      throw failed.notFound(r);
    }
    if (search.version().equals(r.replicaVersion())) {
      ChangeLogEntry e = writing().decode(r);
      NewLineage lineage = newLineage(e);
      if (lineage != null) {
        search = null;
        return startBuild(r, e, lineage);
      }
      search.passed(r, e);
    }
    return null;
  }

  private ChangeLogEntry startBuild(ChangeLogRecord r, ChangeLogEntry begin, NewLineage lineage) {
    String version = r.replicaVersion();
    if (!LineageFiles.nameable(version)) {
      throw new ApplyException(r.topic(), r.partition(), r.offset(), begin.watermark().toString(), "the begin of a "
          + "new lineage carries replica version '" + version + "', which is not a LexiVersion: it cannot name the "
          + "file the new replica is built in", null);
    }
    stranded = null; // a new lineage follows; the one that could not go on is replaced
    if (build == null) {
      freezePublished();
    } else {
      discardBuild("replica version " + version + " replaces it from " + r.where() + " (" + lineage.reason() + ")");
    }
    Path file = files.build(version);
    try {
      build = LineageBuild.start(settings, codec, version, file, begin.watermark(), r.offset(), r.seq());
    } catch (ReplicaException | IOException e) {
      throw new ApplyException(r.topic(), r.partition(), r.offset(), begin.watermark().toString(), "cannot create "
          + file + " to build the replica of the new lineage " + version + ": " + e.getMessage(), e);
    }
    ReplicaState frozen = published.committed();
    LOG.info("Replica {} (replica version {}, watermark {}) meets a new lineage at {}: replica version {} replaces {} "
        + "({}). Building the replica of {} in {}; readers of {} keep reading replica version {} as it is until every "
        + "table of the new lineage is copied, then {} opens it. Snapshots wait until then.", files.path(),
        frozen.replicaVersion(), frozen.watermark(), r.where(), version, lineage.previous(), lineage.reason(), version,
        file, files.path(), frozen.replicaVersion(), files.path());
    events.building(version);
    moved();
    return take(build.feed(), r);
  }

  /**
   * The published replica takes nothing more: its complete transactions are committed, and the
   * rest is rolled back: an open transaction of the old lineage, which never ends in this log (a
   * topic created again does not hold its end), and the SQLite transaction a rolled-back one left.
   */
  private void freezePublished() {
    if (published.inTransaction()) {
      LOG.info("The old lineage's transaction open in {} never ends in this log: rolled back", files.path());
    }
    published.flush();
    published.abort();
  }

  private void discardBuild(String why) {
    LineageBuild gone = build;
    build = null;
    try {
      LOG.info("The build of replica version {} is given up: {}. Deleted {}", gone.version(), why, gone.delete());
    } catch (ReplicaException | IOException e) {
      LOG.warn("The build of replica version {} is given up ({}), but {} could not be deleted: {}", gone.version(), why,
          gone.file(), e.toString());
    }
  }

  private void swapIfComplete(ReplicaState at) {
    TableCopies copies;
    try {
      copies = build.copies();
    } catch (ReplicaException e) {
      throw new ApplyException(at.topic(), at.partition(), at.offset(), at.watermark(), "cannot read how far "
          + build.file() + " is copied: " + e.getMessage(), e);
    }
    if (copies.complete()) {
      swap(copies, at);
    }
  }

  private void swap(TableCopies copies, ReplicaState at) {
    LineageBuild done = build;
    String retired = publishedVersion;
    ReplicaState frozen = published.committed();
    ReplicaSwap.Swapped s;
    try {
      s = swap.swap(published, done);
    } catch (ReplicaException e) {
      throw new ApplyException(at.topic(), at.partition(), at.offset(), at.watermark(), "checkpointing before "
          + "the swap of " + done.file() + " failed: " + e.reason(), e);
    }
    build = null;
    try {
      published = new ReplicaFeed(codec, s.published(), new ReplicaApplier(s.published(), settings
          .maxTransactionsPerCommit()));
    } catch (ReplicaException e) {
      throw new LineageException("Cannot read " + files.path() + " after the swap: " + e.getMessage(), e);
    }
    lastSwap = Instant.now();
    long bytes = done.bytes(); // after the checkpoint: the whole build is in its main file
    LOG.info("Replica version {} is complete ({} tables, {} bytes, {} s in this task): {} now opens {}. Replica "
        + "version {} is retired; a reader still holding it reads it, frozen at watermark {}, until it reopens",
        done.version(), copies.tables(), bytes, Duration.between(done.started(), lastSwap).toSeconds(), files.path(),
        done.file(), retired, frozen.watermark());
    if (!s.deleted().isEmpty()) {
      LOG.info("Deleted the files of replica version {}: {}", retired, s.deleted());
    }
    if (!s.notDeleted().isEmpty()) {
      LOG.warn("Could not delete files of replica version {}: {}; delete them by hand", retired, s.notDeleted());
    }
    if (!s.retiring().isEmpty()) {
      this.retired.retire(retired, s.retiring(), lastSwap);
      LOG.info("The files of replica version {} are deleted in {} s, once no reader can still be opening them by "
          + "their name: {}", retired, RetiredLineages.GRACE.toSeconds(), s.retiring());
    }
    s.leftInPlace().ifPresent(f -> LOG.warn("{} was a symbolic link to {}, which this sink did not make: that file "
        + "(replica version {}) is left in place; delete it when no reader needs it", files.path(), f, retired));
    moved();
    events.swapped(retired, done.version());
  }

  private ReplicaFeed writing() {
    return build != null ? build.feed() : published;
  }

  /** The lineage of the replica being written, with what is applied and not yet committed; null for a new replica. */
  private String writingVersion() {
    return build != null ? build.version() : published.applied().replicaVersion();
  }

  private Watermark floor() {
    return build != null ? build.floor() : published.applied().lastCommit();
  }

  /** The position or the files changed: refresh what other threads read. */
  private void moved() {
    position = build != null && build.committedAny() ? build.feed().committed() : published.committed();
    String v = published.committed().replicaVersion();
    publishedVersion = v == null ? "" : v;
    buildingVersion = build == null ? "" : build.version();
  }

  @Override
  public String replicaVersion() {
    return publishedVersion;
  }

  @Override
  public String buildingVersion() {
    return buildingVersion;
  }

  @Override
  public Instant lastSwap() {
    return lastSwap;
  }

  /** Rolls back what is not committed and closes both files (a build that committed stays for the next start). */
  @Override
  public void close() throws ReplicaException {
    retired.deleteDue(Instant.now());
    try {
      if (build != null) {
        build.close();
      }
    } finally {
      published.close();
    }
  }

  private void closeQuietly() {
    try {
      close();
    } catch (ReplicaException e) {
      LOG.debug("Closing after a failed start", e);
    }
  }
}
