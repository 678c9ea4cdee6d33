package io.pg2lite.replica.lineage;

import io.pg2lite.replica.Replica;
import io.pg2lite.replica.ReplicaException;
import io.pg2lite.replica.ReplicaSettings;
import io.pg2lite.replica.file.ReplicaState;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * Puts a complete build in the place of the published replica, atomically for every reader that
 * opens the replica by its path, then hands the old lineage's files over to be deleted.
 *
 * <p>{@code replica.path} becomes (or stays) a symbolic link to the build's file, which keeps its
 * own name ({@code <name>.lineage-<version>}). SQLite resolves the link when it opens the path
 * (since 3.10) and names the WAL and shared-memory files after the target, so the old and the new
 * lineage never share a {@code -wal} or {@code -shm} file. Renaming the build itself onto the path
 * would not do: the new file would take the old one's {@code -wal}/{@code -shm} names while readers
 * of the old file still use them, and a reader could read one file through the other's WAL index.
 *
 * <p>The steps, in this order, and why:
 * <ol>
 *   <li>Checkpoint both files, the build fully ({@code TRUNCATE}: nobody reads it) and the
 *       published replica as far as its readers allow ({@code PASSIVE}, never waiting). First,
 *       because a checkpoint can fail (a lock) and nothing has changed yet then. The build is then
 *       whole in its main file, with no WAL that a reader would have to recover (a read-only reader
 *       cannot). The old file holds its last transactions in its main file too, for a reader that
 *       opens it a moment before the rename and looks for its {@code -wal} after step 6.
 *   <li>Close both connections: nothing of this sink writes either file under its old role again,
 *       and the old file is left to the readers that hold it.
 *   <li>Note which files are the old lineage's while the path still says so: the file the path
 *       links to (a lineage file of an earlier swap), else the {@code -wal}/{@code -shm}/
 *       {@code -journal} names of the path itself, whose regular file the rename unlinks.
 *   <li>Make the link {@code .<name>.swap} → the build's file name (relative: the directory may be
 *       mounted elsewhere), rename it onto the path (rename(2) replaces the directory entry in one
 *       step: an open by the path finds the old file or the new one, never none), and force the
 *       directory so that the rename survives a crash.
 *   <li>Open the path as the published replica, and check it holds the build's position: proof
 *       that the path resolves to the new file before anything of the old one is deleted.
 *   <li>Delete the sidecars of a path that was a regular file at once; hand an old lineage file
 *       and its sidecars to {@link RetiredLineages}, which deletes them a grace period later (a
 *       reader may have resolved the link to the old name a moment before the rename; why each
 *       way is written there). A reader that holds the old file keeps its open descriptors (Linux
 *       frees a file once the last one closes) and reads the old lineage, frozen at its last
 *       commit, until it reopens.
 * </ol>
 * A crash between steps leaves at most the build complete beside the old replica (before step 4),
 * or the old lineage's files beside the new one (after it): {@link LeftoverBuilds} finishes the
 * swap or deletes them at the next start.
 */
final class ReplicaSwap {
  private final LineageFiles files;
  private final ReplicaSettings settings;

  /**
   * The replica the path now opens; the sidecars of the path's old regular file deleted, and those
   * that could not be (with why); the old lineage file and its sidecars, to delete after a grace
   * period; and, when the path was a link this sink did not make, its target, left in place for its
   * owner.
   */
  record Swapped(Replica published, List<Path> deleted, List<String> notDeleted, List<Path> retiring,
      Optional<Path> leftInPlace) {}

  ReplicaSwap(LineageFiles files, ReplicaSettings settings) {
    this.files = files;
    this.settings = settings;
  }

  /**
   * @throws ReplicaException when a checkpoint fails (step 1: nothing has changed, try again)
   * @throws LineageException when a later step fails: both files are closed, the task must stop;
   *     the next start finishes the swap
   */
  Swapped swap(ReplicaFeed published, LineageBuild build) throws ReplicaException {
    // Nothing uncommitted is left in either (the build has just committed, the published replica is
    // frozen), but a rolled-back upstream transaction leaves its SQLite transaction open, and a
    // checkpoint fails with SQLITE_LOCKED inside one.
    build.feed().abort();
    published.abort();
    build.feed().replica().checkpoint(true);
    published.replica().checkpoint(false);
    ReplicaState expected = build.feed().committed();
    Path path = files.path();
    try {
      build.close();
      published.close();
    } catch (ReplicaException e) {
      throw failed(build, "closing the replicas before the swap failed", e);
    }
    List<Path> old;
    List<Path> retiring = new ArrayList<>();
    Optional<Path> foreignTarget;
    try {
      Optional<Path> current = files.current();
      foreignTarget = current.isEmpty() && Files.isSymbolicLink(path)
          ? Optional.of(path.resolveSibling(Files.readSymbolicLink(path))) : Optional.empty();
      old = current.isPresent() ? List.of() : LineageFiles.sidecars(path);
      if (current.isPresent()) {
        retiring.addAll(LineageFiles.sidecars(current.get()));
        retiring.add(current.get());
      }
      Path link = files.swapLink();
      Files.deleteIfExists(link);
      Files.createSymbolicLink(link, build.file().getFileName());
      Files.move(link, path, StandardCopyOption.ATOMIC_MOVE);
      files.forceDirectory();
    } catch (IOException | UnsupportedOperationException e) {
      throw failed(build, "the directory of " + path + " must allow symbolic links and atomic renames; " + e, e);
    }
    Replica opened;
    try {
      opened = settings.open(path);
    } catch (ReplicaException e) {
      throw failed(build, path + " now links to " + build.file().getFileName() + " but cannot be opened: "
          + e.getMessage(), e);
    }
    String mismatch;
    try {
      ReplicaState state = opened.state();
      mismatch = state.equals(expected) ? null : path + " opens a replica at " + state + ", not the build's "
          + expected + " (does this SQLite follow symbolic links?)";
    } catch (ReplicaException e) {
      mismatch = path + " cannot be read after the swap: " + e.getMessage();
    }
    if (mismatch != null) {
      try {
        opened.close();
      } catch (ReplicaException ignored) {
        // failing anyway; the message says why
      }
      throw failed(build, mismatch, null);
    }
    List<Path> deleted = new ArrayList<>();
    List<String> notDeleted = new ArrayList<>();
    for (Path f : old) {
      try {
        if (Files.deleteIfExists(f)) {
          deleted.add(f);
        }
      } catch (IOException e) {
        notDeleted.add(f + " (" + e + ")");
      }
    }
    return new Swapped(opened, deleted, notDeleted, retiring, foreignTarget);
  }

  private LineageException failed(LineageBuild build, String what, Throwable cause) {
    return new LineageException("Cannot put the replica of replica version " + build.version() + " ("
        + build.file() + ") in place of " + files.path() + ": " + what + ". The task stops; when it starts again it "
        + "finishes the swap (or builds the new lineage again).", cause);
  }
}
