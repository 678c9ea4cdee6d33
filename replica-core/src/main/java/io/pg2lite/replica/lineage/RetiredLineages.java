package io.pg2lite.replica.lineage;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The files of lineages a swap retired, deleted a grace period after the swap rather than at once.
 *
 * <p>Why later: SQLite opens a replica's path in steps. It resolves the link to the lineage file's
 * name, opens that name, and at its first read opens the {@code -wal} and {@code -shm} files named
 * after it, looking the database up by name again ({@code stat}) to do so. A swap that deleted the
 * old lineage's files between two of those steps failed a reader that did nothing wrong
 * ({@code SQLITE_CANTOPEN}, {@code SQLITE_IOERR_FSTAT}: SwapReadersTest caught both under load).
 * Kept for {@link #GRACE}, the old names still open the old lineage, whole and frozen at its last
 * commit, exactly what a reader that opened a moment before the swap reads.
 *
 * <p>Only a lineage file and its sidecars wait. The {@code -wal}/{@code -shm} of a path that was a
 * regular file (the first swap) go at once: a reader that resolved that path before the rename and
 * opens it after reaches the new lineage's file under the old file's sidecar names, and reads it
 * correctly only when those are gone (SQLite then makes them anew, empty).
 *
 * <p>Files still waiting when the process stops are deleted at the next start ({@link
 * LeftoverBuilds}: an old lineage). Called on the thread that applies the log.
 */
final class RetiredLineages {
  private static final Logger LOG = LoggerFactory.getLogger(RetiredLineages.class);
  /** Far longer than a reader takes from resolving the path to its first read, even under load. */
  static final Duration GRACE = Duration.ofSeconds(60);

  private record Retired(String version, List<Path> files, Instant due) {}

  private final Deque<Retired> waiting = new ArrayDeque<>();

  /** The files of {@code version}, to delete once {@link #GRACE} has passed after {@code swappedAt}. */
  void retire(String version, List<Path> files, Instant swappedAt) {
    if (!files.isEmpty()) {
      waiting.add(new Retired(version, List.copyOf(files), swappedAt.plus(GRACE)));
    }
  }

  /** Deletes the files whose grace has passed at {@code now}; returns those deleted. */
  List<Path> deleteDue(Instant now) {
    List<Path> deleted = new ArrayList<>();
    while (!waiting.isEmpty() && !waiting.peek().due().isAfter(now)) {
      Retired r = waiting.poll();
      List<Path> mine = new ArrayList<>();
      List<String> failed = new ArrayList<>();
      for (Path f : r.files()) {
        try {
          if (Files.deleteIfExists(f)) {
            mine.add(f);
          }
        } catch (IOException e) {
          failed.add(f + " (" + e + ")");
        }
      }
      if (!mine.isEmpty()) {
        LOG.info("Deleted the files of replica version {}, retired {} s ago: {}", r.version(), GRACE.toSeconds(), mine);
      }
      if (!failed.isEmpty()) {
        LOG.warn("Could not delete files of replica version {}: {}; delete them by hand", r.version(), failed);
      }
      deleted.addAll(mine);
    }
    return deleted;
  }

  /** The files still waiting for their grace to pass. */
  List<Path> waiting() {
    return waiting.stream().flatMap(r -> r.files().stream()).toList();
  }
}
