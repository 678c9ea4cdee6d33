package io.pg2lite.replica.lineage;

import io.pg2lite.replica.Replica;
import io.pg2lite.replica.ReplicaException;
import io.pg2lite.replica.file.ReplicaState;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Sorts out, at a start, the lineage files a stopped task left beside the replica: at most one is
 * a build to go on with, everything else is deleted, each with a log line saying why.
 *
 * <p>A lineage file that is not the one {@code replica.path} links to is:
 * <ul>
 *   <li>a build in progress when it has committed and its last commit is above the published
 *       replica's (a new lineage starts above every watermark of the one it replaces,
 *       docs/protocol.md, "Lineage"); of several, the newest is kept (a later resync superseded
 *       the others);
 *   <li>an old lineage when its last commit is not above the published replica's: a swap stopped
 *       after its rename, before deleting it;
 *   <li>stale when it committed nothing: its lineage's begin is read again and it is built anew.
 * </ul>
 * Besides: the link of a swap that stopped before its rename, and, once the path is this sink's
 * link, the {@code -wal}/{@code -shm}/{@code -journal} names of the path itself (those of the
 * regular file the first swap replaced; SQLite names a linked file's by its target).
 */
final class LeftoverBuilds {
  private static final Logger LOG = LoggerFactory.getLogger(LeftoverBuilds.class);

  private LeftoverBuilds() {}

  /** The build to go on with, if any; the rest deleted. */
  static Optional<Path> sort(LineageFiles files, ReplicaState published, int busyTimeoutMs) throws IOException {
    deleted(LineageFiles.deleteAll(List.of(files.swapLink())), "the link of a swap that stopped before its rename");
    Optional<Path> current = files.current();
    if (current.isPresent()) {
      deleted(LineageFiles.deleteAll(LineageFiles.sidecars(files.path())), "left by the replica file that "
          + files.path() + " was before it linked to " + current.get().getFileName());
    }
    record Candidate(Path file, ReplicaState state) {}
    List<Candidate> building = new ArrayList<>();
    for (Path f : files.lineageFiles()) {
      if (current.isPresent() && Files.isSameFile(f, current.get())) {
        continue;
      }
      ReplicaState s;
      try {
        s = Replica.stateOf(f, busyTimeoutMs);
      } catch (ReplicaException e) {
        throw new IOException("cannot read " + f + " (" + e.getMessage() + "); it is named like a replica this sink "
            + "builds for a new lineage: delete it if it is not one", e);
      }
      if (s.isEmpty()) {
        deleted(LineageFiles.deleteWithSidecars(f), "a build that committed nothing (it is built again from its "
            + "lineage's begin)");
      } else if (!published.isEmpty() && !s.lastCommit().isAfter(published.lastCommit())) {
        deleted(LineageFiles.deleteWithSidecars(f), "replica version " + s.replicaVersion() + " at watermark "
            + s.watermark() + " is not newer than the published replica (" + published.replicaVersion() + " at "
            + published.watermark() + "): an old lineage a swap replaced");
      } else {
        building.add(new Candidate(f, s));
      }
    }
    building.sort(Comparator.comparing((Candidate c) -> c.state.lastCommit()).reversed());
    for (Candidate older : building.subList(Math.min(1, building.size()), building.size())) {
      deleted(LineageFiles.deleteWithSidecars(older.file), "a build of replica version "
          + older.state.replicaVersion() + " superseded by the newer build " + building.get(0).file.getFileName());
    }
    return building.stream().findFirst().map(Candidate::file);
  }

  private static void deleted(List<Path> files, String why) {
    if (!files.isEmpty()) {
      LOG.info("Deleted {}: {}", files, why);
    }
  }
}
