package io.pg2lite.testkit.support;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.stream.Stream;

/** Deleting a directory with everything in it, which {@link Files} does one file at a time. */
public final class DirectoryTrees {
  private DirectoryTrees() {}

  /** Deletes {@code root} and everything below it; a missing one is fine. */
  public static void delete(Path root) throws IOException {
    if (!Files.exists(root)) {
      return;
    }
    try (Stream<Path> paths = Files.walk(root)) {
      for (Path p : paths.sorted(Comparator.reverseOrder()).toList()) {
        Files.deleteIfExists(p);
      }
    }
  }
}
