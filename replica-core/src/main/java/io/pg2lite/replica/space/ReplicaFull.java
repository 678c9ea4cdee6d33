package io.pg2lite.replica.space;

import java.sql.SQLException;
import java.util.IdentityHashMap;
import java.util.Map;
import java.util.function.LongSupplier;
import org.sqlite.SQLiteException;

/**
 * Recognizes a replica that is full: SQLite could not write it for want of room, on its
 * filesystem or under {@code replica.max.size.bytes} (SQLite's {@code max_page_count}). Such a
 * fault loses nothing (SQLite rolls the transaction back) and only room made from outside cures
 * it, so the sink retries it for as long as it lasts.
 *
 * <p>What sqlite-jdbc reports, as measured on a full tmpfs (a replica in WAL mode, and in DELETE
 * mode):
 * <ul>
 *   <li>{@code SQLITE_FULL} (13, "database or disk is full"): from a statement whose pages spill
 *       to the WAL or whose rollback journal grows, from {@code COMMIT} when the WAL must grow,
 *       and from a checkpoint when the database file must grow; SQLite's Unix VFS turns a write's
 *       {@code ENOSPC} into this code. {@code max_page_count} gives the same code.</li>
 *   <li>{@code SQLITE_IOERR_SHMSIZE} (4874; sqlite-jdbc's {@code getErrorCode()} says 10): from
 *       {@code COMMIT}, or from opening the replica, when the WAL index ({@code -shm}) must grow
 *       by 32 KiB and the filesystem has no room. SQLite reports every failed write of the index
 *       this way and sqlite-jdbc does not pass on the errno, so it counts as full only while the
 *       filesystem has less than {@link #SHM_FULL_BELOW_BYTES} free; otherwise it stays a
 *       permanent I/O error.</li>
 * </ul>
 * After either, SQLite has already rolled the whole transaction back itself: a {@code ROLLBACK}
 * then fails "no transaction is active" ({@link io.pg2lite.replica.Replica#rollback} copes).
 * An automatic checkpoint that fails for want of room is silent: the commit before it succeeded,
 * and the WAL grows instead, until a later commit fails.
 */
public final class ReplicaFull {
  static final int SQLITE_FULL = 13;
  static final int SQLITE_IOERR_SHMSIZE = 4874;
  /** Less room than this beside a failed write of the WAL index is a full filesystem, not a broken one. */
  static final long SHM_FULL_BELOW_BYTES = 1L << 20;

  private ReplicaFull() {}

  /**
   * Whether {@code fault} (or any cause of it) is SQLite saying the replica is full;
   * {@code usableBytes} reads the free space of the replica's filesystem, and is read only for
   * an I/O error of the WAL index.
   */
  public static boolean in(Throwable fault, LongSupplier usableBytes) {
    Map<Throwable, Boolean> seen = new IdentityHashMap<>();
    for (Throwable c = fault; c != null && seen.put(c, Boolean.TRUE) == null; c = c.getCause()) {
      if (c instanceof SQLException sql && (isFull(sql) || isFull(sql.getNextException()))) {
        return true;
      }
      if (c instanceof SQLiteException s && s.getResultCode().code == SQLITE_IOERR_SHMSIZE) {
        long free = usableBytes.getAsLong();
        if (free >= 0 && free < SHM_FULL_BELOW_BYTES) {
          return true;
        }
      }
    }
    return false;
  }

  /**
   * sqlite-jdbc's exceptions carry SQLite's result code (an extended code keeps the primary one
   * in its low byte) and no SQLSTATE; one it wraps (a batch's) keeps the code and the
   * {@code [SQLITE_...]} tag in its message.
   */
  private static boolean isFull(SQLException e) {
    if (e instanceof SQLiteException s) {
      return (s.getResultCode().code & 0xff) == SQLITE_FULL;
    }
    return e != null && e.getSQLState() == null && (e.getErrorCode() & 0xff) == SQLITE_FULL
        && e.getMessage() != null && e.getMessage().contains("SQLITE_FULL");
  }
}
