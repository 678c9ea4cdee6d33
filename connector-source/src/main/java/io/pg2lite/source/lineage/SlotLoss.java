package io.pg2lite.source.lineage;

import io.pg2lite.source.postgres.PostgresCatalog.SlotState;

/**
 * Why Postgres can no longer give the source its slot's changes, named with the setting behind
 * it: what the operator reads first when a lineage ends at the slot.
 */
public final class SlotLoss {
  private SlotLoss() {}

  /** The cause, for a slot that {@link SlotState#invalidated()}. */
  public static String invalidated(String slot, SlotState s) {
    // Before Postgres 17 only wal_status = lost tells, and then the WAL is what went.
    String reason = s.invalidationReason() != null ? s.invalidationReason() : "wal_removed";
    return "replication slot " + slot + " was invalidated by Postgres (" + reason + ": " + explain(reason, s) + ")";
  }

  /**
   * The cause, for a slot that does not exist on {@code where} ({@code host:port} and what the
   * server tells of a promotion, {@link io.pg2lite.source.postgres.PostgresCatalog#whereSlotsLive};
   * null when unknown). A slot is gone either because someone dropped it or because the source now
   * talks to a promoted standby that had no synchronized copy of it: the message names both and
   * what a failover without a resync would have needed, so the next failover keeps the slot.
   */
  public static String missing(String slot, String where) {
    return "replication slot " + slot + " is missing" + (where == null ? "" : " on " + where) + ": dropped by "
        + "hand, or this server is a promoted standby that had not synchronized it. A standby keeps a slot through "
        + "a promotion only if it is a failover slot (PostgreSQL 17+, slot.failover=true) and the standby "
        + "synchronized it before the promotion (sync_replication_slots = on and hot_standby_feedback = on on the "
        + "standby, its physical slot in synchronized_standby_slots on the primary: operations.md, \"Primary "
        + "failover\")";
  }

  private static String explain(String reason, SlotState s) {
    return switch (reason) {
      case "wal_removed" -> "the WAL it still needed was removed, as the slot retained more than "
          + "max_slot_wal_keep_size = " + s.maxSlotWalKeepSize() + " while the source was stopped, paused or behind";
      case "rows_removed", "conflicting" -> "rows it needed were removed on the primary, a conflict with recovery "
          + "on a standby: the standby needs hot_standby_feedback = on and a physical slot (primary_slot_name)";
      case "wal_level_insufficient" -> "wal_level on the primary was lowered below logical";
      case "idle_timeout" -> "it was inactive for longer than idle_replication_slot_timeout";
      default -> "see pg_replication_slots.invalidation_reason in the Postgres documentation";
    };
  }
}
