package io.pg2lite.testkit.support;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;

/**
 * A tmpfs of a test's own: a filesystem that a test can really fill up (the disk-full tests of the
 * replica's volume and of a broker's log directory), and free again by deleting its ballast.
 * Mounting needs root (CI runs the suite as root); without it the test fails saying so. Closing it
 * waits until whatever process still holds a file there has let go (the mount is busy until then)
 * and unmounts it.
 */
public final class Tmpfs implements AutoCloseable {
  private static final Duration UNMOUNT = Duration.ofSeconds(60);
  private final Path dir;

  private Tmpfs(Path dir) {
    this.dir = dir;
  }

  /** Mounts one of {@code size} on a new temporary directory; fails, saying why, when the system refuses (not root). */
  public static Tmpfs mount(String size) throws IOException, InterruptedException {
    Path dir = Files.createTempDirectory("pg2lite-full-disk-");
    try {
      return mount(dir, size);
    } catch (AssertionError e) {
      Files.delete(dir);
      throw e;
    }
  }

  /** Mounts one of {@code size} on the existing, empty directory {@code dir}. */
  public static Tmpfs mount(Path dir, String size) throws IOException, InterruptedException {
    String refused = run("mount", "-t", "tmpfs", "-o", "size=" + size, "tmpfs", dir.toString());
    if (refused != null) {
      throw new AssertionError("a test needs a filesystem of its own that it can fill up: it mounts a tmpfs "
          + "(mount -t tmpfs), which needs root (CI runs the suite as root). Run it as root; the mount said: "
          + refused);
    }
    return new Tmpfs(dir);
  }

  public Path dir() {
    return dir;
  }

  /** Writes a ballast file that leaves about {@code free} bytes of the filesystem free; returns it. */
  public Path fill(long free) throws IOException {
    Path ballast = dir.resolve("ballast");
    long size = Files.getFileStore(dir).getUsableSpace() - free;
    byte[] chunk = new byte[1 << 20];
    try (OutputStream out = Files.newOutputStream(ballast)) {
      for (long written = 0; written < size; written += chunk.length) {
        out.write(chunk, 0, (int) Math.min(chunk.length, size - written));
      }
    }
    return ballast;
  }

  /** The names of the files beside {@code file} whose names start with its own and {@code suffix}. */
  public List<String> filesBeside(Path file, String suffix) throws IOException {
    try (var list = Files.list(dir)) {
      return list.map(f -> f.getFileName().toString()).filter(n -> n.startsWith(file.getFileName() + suffix))
          .sorted().toList();
    }
  }

  /** What the filesystem holds, for the test's log. */
  public String df() throws IOException {
    long total = Files.getFileStore(dir).getTotalSpace();
    long free = Files.getFileStore(dir).getUsableSpace();
    StringBuilder files = new StringBuilder();
    try (var list = Files.list(dir)) {
      for (Path f : list.sorted().toList()) {
        files.append(' ').append(f.getFileName()).append('=').append(Files.size(f) >> 10).append("K");
      }
    }
    return "tmpfs " + (total >> 20) + " MiB, " + (free >> 10) + " KiB free:" + files;
  }

  @Override
  public void close() throws Exception {
    String[] last = {null};
    try {
      Await.until("the tmpfs at " + dir + " unmounted (the worker still holds a file there?)", UNMOUNT, () -> {
        try {
          last[0] = run("umount", dir.toString());
        } catch (IOException | InterruptedException e) {
          last[0] = e.toString();
        }
        return last[0] == null;
      });
    } catch (AssertionError e) {
      run("umount", "-l", dir.toString()); // detach it at least: nothing may stay mounted after the test
      throw new AssertionError(e.getMessage() + "; umount said: " + last[0], e);
    }
    Files.delete(dir);
  }

  /** Runs a command; null when it succeeds, else its exit status and output. */
  private static String run(String... command) throws IOException, InterruptedException {
    Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
    String output = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8).trim();
    int status = p.waitFor();
    return status == 0 ? null : "exit status " + status + ": " + output;
  }
}
