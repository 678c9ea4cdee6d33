package io.pg2lite.source.lineage;

import org.apache.kafka.connect.errors.ConnectException;

/**
 * The change log cannot go on in its lineage. A permanent fault: without {@code resync.auto} the
 * task fails with this message; with it, the source starts a new lineage and {@link #reason()}
 * goes into the new lineage's first begin.
 */
public final class LineageLost extends ConnectException {
  private static final long serialVersionUID = 1L;
  private final String reason;

  /**
   * @param reason the cause in one line ("replication slot pg2lite was invalidated by Postgres
   *     (wal_removed, ...)"), for the change log and metrics
   * @param consequence what is lost and what to do, appended to the reason in the task's message
   */
  public LineageLost(String reason, String consequence) {
    super(reason + ". " + consequence);
    this.reason = reason;
  }

  public String reason() {
    return reason;
  }

  /** The {@link LineageLost} in {@code e}'s causes, or null. */
  public static LineageLost in(Throwable e) {
    for (Throwable t = e; t != null; t = t.getCause() == t ? null : t.getCause()) {
      if (t instanceof LineageLost lost) {
        return lost;
      }
    }
    return null;
  }
}
