package io.pg2lite.replica.lineage;

import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.regex.Pattern;

/**
 * The files of a replica across lineages, all in the directory of {@code replica.path}:
 * <ul>
 *   <li>{@code <name>.lineage-<version>}: the replica of one lineage, built beside the published
 *       one; after its swap, the file {@code replica.path} links to;
 *   <li>{@code .<name>.swap}: the link made before it is renamed onto {@code replica.path};
 *   <li>each database file's {@code -wal}, {@code -shm} and {@code -journal}, named by SQLite
 *       after the file it opened: after a link is resolved, the target.
 * </ul>
 * The version in a name is the lineage's replica version, a LexiVersion (lower-case letters and
 * digits), so a name never holds a path separator or a SQLite suffix.
 */
final class LineageFiles {
  private static final Pattern VERSION = Pattern.compile("[0-9a-z]{1,64}");
  private static final List<String> SIDECARS = List.of("-wal", "-shm", "-journal");
  private final Path path;
  private final String name;

  /** @param path {@code replica.path} */
  LineageFiles(Path path) {
    this.path = path.toAbsolutePath();
    this.name = this.path.getFileName().toString();
  }

  Path path() {
    return path;
  }

  /** Whether {@code version} can name a file: a replica version as the protocol writes them. */
  static boolean nameable(String version) {
    return version != null && VERSION.matcher(version).matches();
  }

  /** The file a replica of lineage {@code version} is built in. */
  Path build(String version) {
    if (!nameable(version)) {
      throw new IllegalArgumentException("replica version '" + version + "' is not a LexiVersion");
    }
    return path.resolveSibling(name + ".lineage-" + version);
  }

  /** The link a swap renames onto {@link #path()}. */
  Path swapLink() {
    return path.resolveSibling("." + name + ".swap");
  }

  /**
   * The lineage file {@code replica.path} links to; empty when it is a regular file (no swap yet),
   * missing, or a link this sink did not make (its target is not one of its lineage files).
   */
  Optional<Path> current() throws IOException {
    if (!Files.isSymbolicLink(path)) {
      return Optional.empty();
    }
    Path target = path.resolveSibling(Files.readSymbolicLink(path)).normalize();
    return lineageFiles().contains(target) ? Optional.of(target) : Optional.empty();
  }

  /** Every lineage file in the directory (not their -wal/-shm/-journal files). */
  List<Path> lineageFiles() throws IOException {
    List<Path> out = new ArrayList<>();
    String prefix = name + ".lineage-";
    try (DirectoryStream<Path> files = Files.newDirectoryStream(path.getParent(), glob(prefix) + "*")) {
      for (Path f : files) {
        if (nameable(f.getFileName().toString().substring(prefix.length())) && !Files.isSymbolicLink(f)) {
          out.add(f.normalize());
        }
      }
    }
    return out;
  }

  /** The version a lineage file is named for. */
  String versionOf(Path lineageFile) {
    return lineageFile.getFileName().toString().substring((name + ".lineage-").length());
  }

  /** The -wal, -shm and -journal files SQLite keeps beside {@code file}, by the names it gives them. */
  static List<Path> sidecars(Path file) {
    return SIDECARS.stream().map(s -> file.resolveSibling(file.getFileName() + s)).toList();
  }

  /** Deletes {@code file} and its sidecars; returns the ones that were there. */
  static List<Path> deleteWithSidecars(Path file) throws IOException {
    List<Path> deleted = new ArrayList<>(deleteAll(sidecars(file)));
    if (Files.deleteIfExists(file)) {
      deleted.add(file);
    }
    return deleted;
  }

  /** Deletes the files that exist; returns those. */
  static List<Path> deleteAll(List<Path> files) throws IOException {
    List<Path> deleted = new ArrayList<>();
    for (Path f : files) {
      if (Files.deleteIfExists(f)) {
        deleted.add(f);
      }
    }
    return deleted;
  }

  /** Makes renames and deletions in the directory durable (on Linux a directory opened for reading can be forced). */
  void forceDirectory() {
    try (FileChannel ch = FileChannel.open(path.getParent(), StandardOpenOption.READ)) {
      ch.force(true);
    } catch (IOException e) {
      // some file systems cannot open a directory; the rename is then as durable as they make it
    }
  }

  private static String glob(String literal) {
    return literal.replaceAll("([\\\\*?\\[\\]{}])", "\\\\$1");
  }
}
