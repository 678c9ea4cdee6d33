package io.pg2lite.replica.follow;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.management.ManagementFactory;
import java.net.InetAddress;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.channels.OverlappingFileLockException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.time.Instant;

/**
 * One writer per replica file: a sink task or a follower holds an exclusive lock on
 * {@code <replica>.writer} for as long as it writes the replica, and writes who it is into it.
 * A second writer refuses to start, naming the file and the holder. SQLite's own locking would not
 * do: it serialises transactions, so two writers would interleave two streams of the same log in
 * one file, each passing over what the other applied, and their offsets would race.
 *
 * <p>The lock is the operating system's ({@link FileChannel#tryLock}): it goes with the process,
 * so a writer killed by SIGKILL leaves no stale lock. Within one JVM (two tasks of a Connect
 * worker, two followers of one application) the JVM's own overlap check refuses the second.
 * The lock file stays on disk; only the lock matters.
 */
public final class ReplicaWriterLock implements AutoCloseable {
  private final Path file;
  private final FileChannel channel;
  private final FileLock lock;

  private ReplicaWriterLock(Path file, FileChannel channel, FileLock lock) {
    this.file = file;
    this.channel = channel;
    this.lock = lock;
  }

  /** The lock file of a replica: beside it, so that it lives on the same file system. */
  public static Path lockFile(Path replica) {
    return replica.resolveSibling(replica.getFileName() + ".writer");
  }

  /**
   * Takes the lock, waiting up to {@code wait} for a writer that is stopping (a restarted task).
   *
   * @param holder who asks, written into the lock file for the next one's message
   * @throws InUse when another writer still holds it
   * @throws UncheckedIOException when the lock file cannot be created
   */
  public static ReplicaWriterLock acquire(Path replica, String holder, Duration wait) throws InterruptedException {
    Path file = lockFile(replica);
    long deadline = System.nanoTime() + wait.toNanos();
    while (true) {
      try {
        Files.createDirectories(file.toAbsolutePath().getParent());
        FileChannel ch = FileChannel.open(file, StandardOpenOption.CREATE, StandardOpenOption.READ,
            StandardOpenOption.WRITE);
        FileLock lock = tryLock(ch);
        if (lock != null) {
          String me = holder + " (pid " + ProcessHandle.current().pid() + " on " + host() + ", since " + Instant.now()
              + ")\n";
          ch.truncate(0);
          ch.write(ByteBuffer.wrap(me.getBytes(StandardCharsets.UTF_8)), 0);
          ch.force(false);
          return new ReplicaWriterLock(file, ch, lock);
        }
        ch.close();
      } catch (IOException e) {
        throw new UncheckedIOException("cannot create the writer lock " + file.toAbsolutePath() + " of replica "
            + replica + ": " + e.getMessage(), e);
      }
      if (System.nanoTime() >= deadline) {
        throw new InUse(replica, holderOf(file));
      }
      Thread.sleep(200);
    }
  }

  private static FileLock tryLock(FileChannel ch) throws IOException {
    try {
      return ch.tryLock();
    } catch (OverlappingFileLockException e) {
      return null; // this JVM holds it already
    }
  }

  private static String holderOf(Path file) {
    try {
      String s = Files.readString(file, StandardCharsets.UTF_8).trim();
      return s.isEmpty() ? "another process" : s;
    } catch (IOException e) {
      return "another process";
    }
  }

  private static String host() {
    try {
      return InetAddress.getLocalHost().getHostName();
    } catch (IOException e) {
      return ManagementFactory.getRuntimeMXBean().getName();
    }
  }

  @Override
  public void close() {
    try {
      lock.release();
    } catch (IOException ignored) {
      // closing the channel releases it too
    }
    try {
      channel.close();
    } catch (IOException ignored) {
      // the lock is gone with the channel
    }
  }

  @Override
  public String toString() {
    return "writer lock " + file;
  }

  /** Another sink task or follower writes this replica: a permanent fault, named for the operator. */
  public static final class InUse extends RuntimeException {
    private static final long serialVersionUID = 1L;

    InUse(Path replica, String holder) {
      super("replica " + replica.toAbsolutePath() + " already has a writer: " + holder + ". A replica file has "
          + "exactly one writer (one sink task or one follower); give this one its own " + FollowSettings.REPLICA_PATH
          + ", or stop the other first. (The lock is " + lockFile(replica).toAbsolutePath() + "; the operating "
          + "system releases it when its holder exits, even when killed.)");
    }
  }
}
