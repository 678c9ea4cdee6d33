package io.pg2lite.replica.snapshot;

import io.pg2lite.replica.ReplicaException;
import io.pg2lite.replica.file.ReplicaFile;
import io.pg2lite.replica.file.ReplicaState;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Gives a sink whose replica is missing (a new sink, or a task that moved to a worker without its
 * file) the newest snapshot it can catch up from, instead of a replay of the whole log.
 *
 * <p>The rule: the newest snapshot of the same change log and replica version whose next offset
 * the topic still holds ({@code offset + 1 >= log start}); a snapshot is trusted only when its
 * data matches its manifest (size, SHA-256) and the state row inside equals the manifest. Anything else is skipped with a warning and the next older one
 * tried. When none fits, nothing is restored and the sink starts from an empty replica, which
 * the usual "too far behind" check then refuses if the log no longer starts at 0.
 */
public final class SnapshotRestorer {
  private static final Logger LOG = LoggerFactory.getLogger(SnapshotRestorer.class);
  private final SnapshotStore store;
  private final int busyTimeoutMs;

  /** What the restorer needs to know about the change log now. */
  public interface LogView {
    /** The first offset the topic still holds. */
    long logStart() throws IOException;

    /** The replica version of the log's newest records; empty when the log has none. */
    Optional<String> replicaVersion() throws IOException;
  }

  /** The outcome, for the task's messages and metrics. */
  public record Outcome(Optional<SnapshotManifest> restored, List<String> skipped, int considered) {}

  public SnapshotRestorer(SnapshotStore store, int busyTimeoutMs) {
    this.store = store;
    this.busyTimeoutMs = busyTimeoutMs;
  }

  /** Restores into {@code replica} when it is missing or has applied nothing; otherwise leaves it alone. */
  public Outcome restoreIfMissing(Path replica, String topic, int partition, LogView log)
      throws IOException, ReplicaException {
    List<String> skipped = new ArrayList<>();
    try {
      if (!SnapshotFiles.missingOrEmpty(replica, busyTimeoutMs)) {
        return new Outcome(Optional.empty(), skipped, 0);
      }
    } catch (SQLException e) {
      throw ReplicaException.of(e);
    }
    SnapshotOrigin.clear(replica); // whatever comes next, the file beside it is not that snapshot's
    List<SnapshotManifest> all = store.list(topic, partition, (name, why) -> skip(skipped, name, why));
    if (all.isEmpty()) {
      return new Outcome(Optional.empty(), skipped, 0);
    }
    long logStart = log.logStart();
    Optional<String> version = log.replicaVersion();
    Path restored = replica.resolveSibling(replica.getFileName() + ".restored");
    for (SnapshotManifest m : all) {
      if (!m.coveredBy(logStart)) {
        skip(skipped, m.id(), "its offset " + m.offset() + " is older than the topic's start " + logStart);
        continue;
      }
      if (version.isPresent() && !version.get().equals(m.replicaVersion())) {
        skip(skipped, m.id(), "replica version " + m.replicaVersion() + ", the change log is at " + version.get());
        continue;
      }
      try {
        SnapshotFiles.deleteReplica(restored);
        store.fetch(m, restored);
        verify(restored, m);
      } catch (CorruptSnapshotException e) {
        skip(skipped, m.id(), e.reason());
        SnapshotFiles.deleteReplica(restored);
        continue;
      }
      SnapshotFiles.deleteReplica(replica);
      Files.move(restored, replica, StandardCopyOption.ATOMIC_MOVE);
      SnapshotOrigin.record(replica, m);
      return new Outcome(Optional.of(m), skipped, all.size());
    }
    return new Outcome(Optional.empty(), skipped, all.size());
  }

  /**
   * The copy holds exactly the position its manifest names. Its bytes are already known to be
   * the publisher's (size and SHA-256, checked by the store), and the publisher wrote them with
   * {@code VACUUM INTO}; so a full {@code quick_check}, which reads the whole file again, would
   * only repeat what the checksum proved.
   */
  private void verify(Path file, SnapshotManifest m) throws CorruptSnapshotException {
    try (Connection c = ReplicaFile.connect(file, busyTimeoutMs, true)) {
      ReplicaState p = SnapshotFiles.position(c)
          .orElseThrow(() -> new CorruptSnapshotException(m.id(), "the copy has no replica state"));
      if (p.offset() != m.offset() || !p.topic().equals(m.topic()) || p.partition() != m.partition()
          || !java.util.Objects.equals(p.replicaVersion(), m.replicaVersion())) {
        throw new CorruptSnapshotException(m.id(), "the copy's state (" + p + ") differs from its manifest");
      }
    } catch (SQLException e) {
      throw new CorruptSnapshotException(m.id(), "not a readable SQLite file: " + e.getMessage());
    }
  }

  private static void skip(List<String> skipped, String name, String why) {
    LOG.warn("Snapshot {} skipped: {}", name, why);
    skipped.add(name + ": " + why);
  }
}
