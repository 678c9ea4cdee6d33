package io.pg2lite.replica.space;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Locale;

/**
 * The room a replica has and needs: the usable space of its filesystem (the
 * {@link java.nio.file.FileStore} of its directory), the size of its file and WAL, and an
 * estimate of what a transaction needs. For the messages and the metric of a full replica
 * ({@link ReplicaFull}); every figure is read from the filesystem when asked.
 */
public final class ReplicaSpace {
  /**
   * How far the WAL grows between two checkpoints: SQLite's default {@code wal_autocheckpoint},
   * 1000 pages, at the default page size of 4 KiB (pg2lite changes neither).
   */
  static final long WAL_HEADROOM_BYTES = 1000L * 4096;
  private final Path file;
  private final String limitSetting;
  private final long limitBytes;
  private final boolean wal;

  /**
   * @param file the replica file
   * @param limitSetting the setting that caps the replica's size, for messages
   * @param limitBytes that cap, 0 for none
   * @param wal whether the replica is in WAL mode
   */
  public ReplicaSpace(Path file, String limitSetting, long limitBytes, boolean wal) {
    this.file = file.toAbsolutePath();
    this.limitSetting = limitSetting;
    this.limitBytes = limitBytes;
    this.wal = wal;
  }

  public Path file() {
    return file;
  }

  /** Usable bytes on the replica's filesystem; -1 when they cannot be read. */
  public long usableBytes() {
    return usableBytesBeside(file);
  }

  /** Usable bytes on the filesystem of {@code file}'s directory; -1 when they cannot be read. */
  public static long usableBytesBeside(Path file) {
    try {
      return Files.getFileStore(file.toAbsolutePath().getParent()).getUsableSpace();
    } catch (IOException | RuntimeException e) {
      return -1;
    }
  }

  /**
   * The replica's room now, for a transaction of which {@code pendingBytes} of change-log records
   * were applied when it did not fit.
   */
  public Shortage measure(long pendingBytes) {
    long need = 2 * pendingBytes + (wal ? WAL_HEADROOM_BYTES : 0);
    return new Shortage(usableBytes(), size(file), wal ? size(file.resolveSibling(file.getFileName() + "-wal")) : 0,
        pendingBytes, need);
  }

  /** The size of {@code p}; 0 when it is missing or unreadable. */
  public static long size(Path p) {
    try {
      return Files.size(p);
    } catch (IOException e) {
      return 0;
    }
  }

  /**
   * The figures of one look at a full replica.
   *
   * @param usableBytes free space on its filesystem (-1 when unknown)
   * @param fileBytes the replica file's size
   * @param walBytes its WAL's size (0 outside WAL mode)
   * @param pendingBytes change-log records applied since its last commit, when the write failed
   * @param neededBytes the estimate of the room the transaction needs: twice {@code pendingBytes}
   *     (in the WAL or rollback journal, then in the database file) plus, in WAL mode,
   *     {@link #WAL_HEADROOM_BYTES}; the records' JSON is only roughly the size of SQLite's rows
   */
  public record Shortage(long usableBytes, long fileBytes, long walBytes, long pendingBytes, long neededBytes) {}

  /**
   * Whether the size limit, rather than the filesystem, refused the write: a limit is set and
   * the filesystem has the room the transaction needs, as far as the estimate tells.
   */
  public boolean limitReached(Shortage s) {
    return limitBytes > 0 && s.usableBytes() >= s.neededBytes();
  }

  /** The ERROR line's text when the replica becomes full: what is full, the figures, what to do. */
  public String describe(Shortage s) {
    String size = "the replica takes " + mib(s.fileBytes()) + (wal ? " (its WAL " + mib(s.walBytes()) + ")" : "");
    String retries = "the sink retries from its last commit (nothing is lost), with no time limit";
    if (limitReached(s)) {
      return "The replica " + file + " reached its size limit, " + limitSetting + " = " + limitBytes + " ("
          + mib(limitBytes) + "): " + size + "; its filesystem has " + mib(s.usableBytes()) + " free. Raise "
          + limitSetting + ", or set it to 0 for no limit (the task restarts with the new config); until then "
          + retries + ".";
    }
    return "The replica " + file + " is full: its filesystem has " + mib(s.usableBytes()) + " free; " + size
        + "; the transaction being applied needs about " + mib(s.neededBytes()) + " more (an estimate: twice the "
        + mib(s.pendingBytes()) + " of change-log records since the last commit" + (wal ? ", plus "
        + mib(WAL_HEADROOM_BYTES) + " for the WAL between checkpoints" : "") + ")"
        + (limitBytes > 0 ? "; " + limitSetting + " = " + limitBytes + " is set as well" : "")
        + ". Free space on that filesystem; nothing else is needed: " + retries + ", and goes on by itself once "
        + "there is room.";
  }

  /** The reminder's text while the replica stays full. */
  public String describeBriefly(Shortage s) {
    return limitReached(s) ? "its size limit " + limitSetting + " = " + limitBytes + " is reached"
        : mib(s.usableBytes()) + " free on its filesystem, about " + mib(s.neededBytes()) + " needed";
  }

  /** Bytes in MiB with one decimal, or "an unknown amount" for -1. */
  public static String mib(long bytes) {
    return bytes < 0 ? "an unknown amount" : String.format(Locale.ROOT, "%.1f MiB", bytes / 1048576.0);
  }
}
