package io.pg2lite.replica.lineage;

import io.pg2lite.protocol.codec.ChangeLogCodec;
import io.pg2lite.protocol.watermark.Watermark;
import io.pg2lite.replica.apply.ReplicaApplier;
import io.pg2lite.replica.Replica;
import io.pg2lite.replica.ReplicaException;
import io.pg2lite.replica.ReplicaSettings;
import io.pg2lite.replica.file.ReplicaState;
import io.pg2lite.replica.schema.TableCopies;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.List;

/**
 * The replica of a new lineage while it is built, in a file of its own beside the published
 * replica ({@link LineageFiles#build}), from the lineage's first-start transaction on. It is
 * opened with the published replica's settings, since it takes its place, and has its own
 * {@link ReplicaFeed}: the records it takes never move the published replica's position.
 *
 * <p>It exists, for a restart, once it has committed: a build that committed nothing is deleted
 * and built again when its lineage's begin comes again.
 */
final class LineageBuild implements AutoCloseable {
  private final String version;
  private final Path file;
  private final ReplicaFeed feed;
  /** The lineage's first watermark ({@code V.01}); at a restart, the build's last commit. */
  private final Watermark floor;
  private final Instant started;

  private LineageBuild(String version, Path file, ReplicaFeed feed, Watermark floor) {
    this.version = version;
    this.file = file;
    this.feed = feed;
    this.floor = floor;
    this.started = Instant.now();
  }

  /**
   * A new build in {@code file}, which must take the record at {@code beginOffset} (the lineage's
   * begin, number {@code beginSeq}) next; anything a crash left under that name is deleted first.
   */
  static LineageBuild start(ReplicaSettings settings, ChangeLogCodec codec, String version, Path file,
      Watermark begin, long beginOffset, Long beginSeq) throws ReplicaException, IOException {
    LineageFiles.deleteWithSidecars(file);
    LineageBuild build = open(settings, codec, version, file, begin);
    build.feed.startAt(beginOffset, beginSeq);
    return build;
  }

  /** A build a restart found in {@code file}, going on from its last commit. */
  static LineageBuild resume(ReplicaSettings settings, ChangeLogCodec codec, String version, Path file)
      throws ReplicaException {
    return open(settings, codec, version, file, null);
  }

  private static LineageBuild open(ReplicaSettings settings, ChangeLogCodec codec, String version, Path file,
      Watermark begin) throws ReplicaException {
    Replica replica = settings.open(file);
    try {
      ReplicaApplier applier = new ReplicaApplier(replica, settings.maxTransactionsPerCommit());
      ReplicaState committed = applier.committed();
      return new LineageBuild(version, file, new ReplicaFeed(codec, replica, applier),
          begin != null ? begin : committed.lastCommit());
    } catch (ReplicaException | RuntimeException e) {
      replica.close();
      throw e;
    }
  }

  String version() {
    return version;
  }

  Path file() {
    return file;
  }

  ReplicaFeed feed() {
    return feed;
  }

  Instant started() {
    return started;
  }

  /**
   * The watermark below which nothing belongs to this build: its last commit, or its lineage's
   * first watermark before it has one. A lineage begin at or below it is an older one, delivered
   * again.
   */
  Watermark floor() {
    ReplicaState applied = feed.applied();
    if (applied.isEmpty()) {
      return floor;
    }
    Watermark last = applied.lastCommit();
    return floor != null && floor.isAfter(last) ? floor : last;
  }

  /** Whether it has committed anything (then a restart resumes it). */
  boolean committedAny() {
    return !feed.committed().isEmpty();
  }

  /** How far its tables are copied, as committed; call outside a transaction (right after a commit). */
  TableCopies copies() throws ReplicaException {
    return feed.replica().copies();
  }

  /** Closes it and deletes its files; returns those deleted. */
  List<Path> delete() throws ReplicaException, IOException {
    feed.close();
    return LineageFiles.deleteWithSidecars(file);
  }

  long bytes() {
    try {
      return Files.size(file);
    } catch (IOException e) {
      return -1;
    }
  }

  @Override
  public void close() throws ReplicaException {
    feed.close();
  }
}
