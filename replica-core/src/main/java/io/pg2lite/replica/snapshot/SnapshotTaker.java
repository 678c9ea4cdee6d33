package io.pg2lite.replica.snapshot;

import io.pg2lite.replica.ReplicaException;
import io.pg2lite.replica.file.ReplicaFile;
import io.pg2lite.replica.file.ReplicaState;
import io.pg2lite.replica.space.ReplicaFull;
import io.pg2lite.replica.space.ReplicaSpace;
import java.io.IOException;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Clock;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.function.Predicate;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Takes one snapshot of a replica while the sink goes on applying: {@code VACUUM INTO} on a
 * connection of its own copies the replica as of one read transaction (in WAL mode the writer
 * is never blocked by it), so the copy holds whole upstream transactions and the state row that
 * describes exactly them. The manifest is read back from the copy, never from the live replica,
 * then the copy is published and the store pruned to the newest {@code keep} snapshots.
 */
public final class SnapshotTaker {
  private static final Logger LOG = LoggerFactory.getLogger(SnapshotTaker.class);
  private final Path replica;
  private final SnapshotStore store;
  private final int keep;
  private final int busyTimeoutMs;
  private final Clock clock;
  private volatile Statement running;

  public SnapshotTaker(Path replica, SnapshotStore store, int keep, int busyTimeoutMs, Clock clock) {
    this.replica = replica;
    this.store = store;
    this.keep = keep;
    this.busyTimeoutMs = busyTimeoutMs;
    this.clock = clock;
  }

  /**
   * Snapshots the replica unless its last commit is still the one at {@code lastOffset} (nothing
   * new to keep) or it has applied nothing; returns the published manifest.
   */
  public Optional<SnapshotManifest> take(long lastOffset) throws ReplicaException, IOException {
    try {
      return copyAndPublish(lastOffset);
    } catch (SQLException e) {
      throw ReplicaException.of(e);
    }
  }

  private Optional<SnapshotManifest> copyAndPublish(long lastOffset) throws SQLException, IOException {
    Path copy = replica.resolveSibling(replica.getFileName() + ".snapshot.tmp");
    SnapshotFiles.deleteReplica(copy);
    try {
      try (Connection c = ReplicaFile.connect(replica, busyTimeoutMs, false); Statement s = c.createStatement()) {
        Optional<ReplicaState> live = SnapshotFiles.position(c);
        if (live.isEmpty() || live.get().offset() == lastOffset) {
          return Optional.empty();
        }
        running = s;
        try {
          s.execute("VACUUM INTO " + SnapshotFiles.literal(copy.toAbsolutePath().toString()));
        } catch (SQLException e) {
          if (ReplicaFull.in(e, () -> ReplicaSpace.usableBytesBeside(copy))) {
            throw noRoomForCopy(copy, e);
          }
          throw e;
        } finally {
          running = null;
        }
      }
      ReplicaState p;
      try (Connection c = ReplicaFile.connect(copy, busyTimeoutMs, true)) {
        p = SnapshotFiles.position(c).orElseThrow(() -> new SQLException("the snapshot copy has no state row"));
      }
      SnapshotManifest stored = store.publish(copy, new SnapshotManifest(null, p.replicaVersion(), p.watermark(),
          p.topic(), p.partition(), p.offset(), p.seq(), 0, null, clock.instant()));
      prune(p.topic(), p.partition());
      return Optional.of(stored);
    } finally {
      SnapshotFiles.deleteReplica(copy); // with the journal a failed VACUUM INTO leaves beside it
    }
  }

  /**
   * The copy found no room ({@link ReplicaFull}): it is written beside the replica and needs up
   * to the replica's size. Names the copy and the room, for the schedule's log line.
   */
  private IOException noRoomForCopy(Path copy, SQLException e) {
    return new IOException("no room for the snapshot copy " + copy.toAbsolutePath() + ": its filesystem has "
        + ReplicaSpace.mib(ReplicaSpace.usableBytesBeside(copy)) + " free, and the copy needs up to the replica's "
        + "size, " + ReplicaSpace.mib(ReplicaSpace.size(replica)) + " (" + e.getMessage() + ")", e);
  }

  /** Stops a copy under way (from another thread): {@link #take} then fails with an interrupted statement. */
  public void cancel() {
    Statement s = running;
    if (s != null) {
      try {
        s.cancel();
      } catch (SQLException e) {
        LOG.debug("Cannot cancel the snapshot copy", e);
      }
    }
  }

  /**
   * Deletes the snapshots of the change log whose replica version {@code retired} accepts: those
   * of a lineage the replica no longer follows, which no new replica could start from. Returns
   * them.
   */
  public List<SnapshotManifest> retire(String topic, int partition, Predicate<String> retired) throws IOException {
    List<SnapshotManifest> gone = new ArrayList<>();
    for (SnapshotManifest m : store.list(topic, partition, (name, why) -> { })) {
      if (retired.test(m.replicaVersion())) {
        store.delete(m);
        gone.add(m);
        LOG.info("Deleted snapshot {} (offset {}) of replica version {}: a retired lineage", m.id(), m.offset(),
            m.replicaVersion());
      }
    }
    return gone;
  }

  private void prune(String topic, int partition) throws IOException {
    List<SnapshotManifest> all = store.list(topic, partition, (name, why) -> { });
    for (SnapshotManifest old : all.subList(Math.min(keep, all.size()), all.size())) {
      store.delete(old);
      LOG.info("Deleted snapshot {} (offset {}): {} newer ones are kept", old.id(), old.offset(), keep);
    }
  }
}
