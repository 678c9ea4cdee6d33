package io.pg2lite.source.lineage;

import io.pg2lite.source.postgres.CreatedSlot;
import io.pg2lite.source.postgres.PostgresCatalog;
import io.pg2lite.source.postgres.PostgresCatalog.SlotState;
import io.pg2lite.source.replication.ReplicationSession;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.Map;
import java.util.function.Supplier;

/**
 * Looks at the slot before a replication session opens on it. Debezium, asked to stream from a
 * slot Postgres invalidated, retries for half an hour ("Cannot obtain valid replication slot ...
 * concurrent tx probably blocks taking snapshot") with the task RUNNING; a slot that is gone fails
 * with a message that does not say so. Checked first, both are a {@link LineageLost} naming the
 * cause at once. Postgres ends the walsender of a slot it invalidates, so a slot lost while
 * streaming is found here too: the session fails, and the reopen that heals it checks first.
 *
 * <p>It looks again once the session is open ({@link #guarding}): Debezium creates a slot it does
 * not find, so a slot dropped between the first look and the open would come back empty, created
 * at that moment, and the session would silently skip everything in between (FuzzIT seed 3906,
 * batch AY). Such a slot has confirmed beyond where the session starts.
 */
public final class SlotGuard {
  /** Reads the slot's state; null when it does not exist. */
  @FunctionalInterface
  public interface Lookup {
    SlotState slot() throws SQLException;

    /**
     * Where a missing slot was looked for, for the message: the server and whether it was
     * promoted; null when unknown. Asked only once the slot was found missing.
     */
    default String where() {
      return null;
    }
  }

  /** Looks the slot up over a new connection from {@code connections} each time. */
  public static Lookup onServer(String slot, CreatedSlot.Connections connections) {
    return new Lookup() {
      @Override
      public SlotState slot() throws SQLException {
        try (Connection c = connections.connect(Map.of())) {
          return new PostgresCatalog(c).slot(slot);
        }
      }

      @Override
      public String where() {
        try (Connection c = connections.connect(Map.of())) {
          return new PostgresCatalog(c).whereSlotsLive();
        } catch (SQLException | RuntimeException e) {
          return null;
        }
      }
    };
  }

  private final String slot;
  private final Lookup lookup;

  public SlotGuard(String slot, Lookup lookup) {
    this.slot = slot;
    this.lookup = lookup;
  }

  /**
   * {@code sessions}, with the slot looked at before each session opens and again once it is open
   * (a session that fails the second look is closed).
   *
   * @param lineageStart the LSN of the lineage's replica version, where a session with no commit
   *     to resume after starts (null when unknown)
   */
  public ReplicationSession.Opener guarding(ReplicationSession.Opener sessions, Supplier<Long> lineageStart) {
    return resumeAfter -> {
      Long from = resumeAfter != null ? resumeAfter : lineageStart.get();
      check(from);
      ReplicationSession session;
      try {
        session = sessions.open(resumeAfter);
      } catch (SQLException | RuntimeException e) {
        lostDuring(e, from);
        throw e;
      }
      try {
        check(from);
      } catch (SQLException | RuntimeException e) {
        session.close();
        throw e;
      }
      return session;
    };
  }

  /**
   * An open that failed is looked at again: a slot dropped or invalidated while Debezium opened
   * the session fails it with Debezium's own words ("replication slot ... does not exist", after
   * its retries), which no rule here recognizes; the lineage is lost then, and must say so
   * (FuzzIT seed 4025, batch BE: the task failed instead of starting a new lineage).
   *
   * @throws LineageLost when the slot is gone or invalidated now, with {@code failed} suppressed
   */
  private void lostDuring(Exception failed, Long from) {
    try {
      check(from);
    } catch (LineageLost lost) {
      lost.addSuppressed(failed);
      throw lost;
    } catch (SQLException | RuntimeException cannotLook) {
      failed.addSuppressed(cannotLook); // the open's own failure is the one to heal or report
    }
  }

  /**
   * @param resumeAfter the commit LSN the session will resume after (null: the slot's own
   *     position); a slot that confirmed beyond it was dropped and created again meanwhile, and
   *     would silently skip what lies between
   * @throws LineageLost when the slot does not exist, Postgres invalidated it, or it was recreated
   * @throws SQLException when the slot cannot be looked at (transient: the caller heals it)
   */
  public void check(Long resumeAfter) throws SQLException {
    SlotState state = lookup.slot();
    if (state == null) {
      throw stopped(SlotLoss.missing(slot, lookup.where()));
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
