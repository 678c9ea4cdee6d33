package io.pg2lite.source.lineage;

import io.pg2lite.source.postgres.PostgresCatalog;
import io.pg2lite.source.postgres.PostgresCatalog.SlotState;
import java.sql.Connection;
import java.sql.SQLException;

/**
 * Looks at the slot before a replication session opens on it. Debezium, asked to stream from a
 * slot Postgres invalidated, retries for half an hour ("Cannot obtain valid replication slot ...
 * concurrent tx probably blocks taking snapshot") with the task RUNNING; a slot that is gone fails
 * with a message that does not say so. Checked first, both are a {@link LineageLost} naming the
 * cause at once. Postgres ends the walsender of a slot it invalidates, so a slot lost while
 * streaming is found here too: the session fails, and the reopen that heals it checks first.
 */
public final class SlotGuard {
  /** Opens a plain connection to the database. */
  @FunctionalInterface
  public interface Connector {
    Connection connect() throws SQLException;
  }

  private final String slot;
  private final Connector postgres;

  public SlotGuard(String slot, Connector postgres) {
    this.slot = slot;
    this.postgres = postgres;
  }

  /**
   * @param resumeAfter the commit LSN the session will resume after (null: the slot's own
   *     position); a slot that confirmed beyond it was dropped and created again meanwhile, and
   *     would silently skip what lies between
   * @throws LineageLost when the slot does not exist, Postgres invalidated it, or it was recreated
   * @throws SQLException when the slot cannot be looked at (transient: the caller heals it)
   */
  public void check(Long resumeAfter) throws SQLException {
    SlotState state;
    try (Connection c = postgres.connect()) {
      state = new PostgresCatalog(c).slot(slot);
    }
    if (state == null) {
      throw stopped(SlotLoss.missing(slot));
    }
    if (state.invalidated()) {
      throw stopped(SlotLoss.invalidated(slot, state));
    }
    if (resumeAfter != null && state.confirmedFlush() != null
        && Long.compareUnsigned(state.confirmedFlush().value(), resumeAfter) > 0) {
      throw stopped("replication slot " + slot + " has confirmed " + state.confirmedFlush() + ", beyond the position "
          + "the source resumes from (" + new io.pg2lite.protocol.watermark.Lsn(resumeAfter) + "): the slot was "
          + "dropped and recreated");
    }
  }

  private LineageLost stopped(String cause) {
    return new LineageLost(cause, "The source stopped reading it: the changes the slot held are lost to this "
        + "change log. " + LineageCheck.resyncAdvice(slot));
  }
}
