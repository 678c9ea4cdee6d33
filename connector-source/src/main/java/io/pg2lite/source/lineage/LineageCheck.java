package io.pg2lite.source.lineage;

import io.pg2lite.protocol.watermark.Lsn;
import io.pg2lite.protocol.watermark.Watermark;
import io.pg2lite.source.kafka.LogTail;
import io.pg2lite.source.postgres.PostgresCatalog.SlotState;
import io.pg2lite.source.transaction.SourcePosition;
import java.util.Optional;
import java.util.function.Supplier;

/**
 * Decides at start whether the source goes on with its lineage, starts the first one, or must
 * start a new one, from what it stored (Connect's offsets), what the slot is, and what the topic
 * holds. Without {@code resync.auto} a lineage that cannot go on is a {@link LineageLost}, naming
 * the cause and what to do; with it, a {@link Decision.NewLineage}.
 *
 * <p>The order of the checks matters: a source that crashed after starting a new lineage and
 * before Connect stored that lineage's first offsets finds its old offsets, a fresh slot and a
 * topic ending in the new lineage; that is recognised (the slot has confirmed nothing past its
 * consistent point, which is the log's replica version) before the fresh slot could look
 * "recreated", so the new lineage goes on instead of a third one starting.
 */
public final class LineageCheck {
  /** What the start-up does. */
  public sealed interface Decision {
    /** Resume the stored position on the existing slot. */
    record Continue() implements Decision {}

    /**
     * Write the first-start transaction: of a new slot ({@code adoptFrom} null: create it, dropping
     * an invalidated one first when {@code dropFirst}) or of an existing slot that has confirmed
     * nothing yet ({@code adoptFrom} = its consistent point).
     */
    record FirstStart(Lsn adoptFrom, boolean dropFirst) implements Decision {}

    /**
     * Start a new lineage: drop the slot if it exists ({@code dropSlot}), create it again, and
     * write a first-start transaction whose begin names {@code previous} and {@code reason}.
     */
    record NewLineage(Watermark previous, String reason, boolean dropSlot) implements Decision {}
  }

  private final String slot;
  private final String topic;
  private final boolean resyncAuto;

  /** Where a missing slot was looked for (SlotLoss#missing); null: not said. */
  private final Supplier<String> where;

  public LineageCheck(String slot, String topic, boolean resyncAuto) {
    this(slot, topic, resyncAuto, () -> null);
  }

  /** @param where names the server a missing slot was looked for on, asked only when it is missing */
  public LineageCheck(String slot, String topic, boolean resyncAuto, Supplier<String> where) {
    this.slot = slot;
    this.topic = topic;
    this.resyncAuto = resyncAuto;
    this.where = where;
  }

  /**
   * @param stored the position in Connect's offsets, or null when none are stored
   * @param state the slot, or null when it does not exist
   * @param stamped the commit LSN of the stored upstream position, or null
   * @param tail the log's last committed record, empty when the topic holds none
   * @param topicStart the topic's log-start offset: 0 for a topic that never lost records to
   *     retention (with no tail: a topic that was never written, or deleted and created again)
   */
  public Decision decide(SourcePosition stored, SlotState state, Lsn stamped, Optional<LogTail> tail,
      long topicStart) {
    return decide(stored, state, stamped, tail, topicStart, null);
  }

  /**
   * As {@link #decide(SourcePosition, SlotState, Lsn, Optional, long)}; a lineage that could go on
   * still ends when {@code forced} says why (a replica stranded on it, found with resync.auto).
   */
  public Decision decide(SourcePosition stored, SlotState state, Lsn stamped, Optional<LogTail> tail,
      long topicStart, String forced) {
    if (stored == null) {
      return withoutOffsets(state, tail);
    }
    Watermark version = stored.replicaVersion();
    if (tail.isPresent() && !version.equals(tail.get().replicaVersion()) && continuesNewLineage(state, tail)) {
      return new Decision.FirstStart(state.confirmedFlush(), false);
    }
    String lost = "Changes since the last commit this connector stored (" + stored.lastCommit() + ", replica version "
        + version + ") are lost to this change log.";
    if (state == null) {
      return lost(SlotLoss.missing(slot, where.get()), lost, version, false);
    }
    if (state.invalidated()) {
      return lost(SlotLoss.invalidated(slot, state), lost, version, true);
    }
    if (stamped != null && state.confirmedFlush() != null
        && Long.compareUnsigned(state.confirmedFlush().value(), stamped.value()) > 0) {
      return lost("replication slot " + slot + " has confirmed " + state.confirmedFlush() + ", beyond the last "
          + "position this connector stored (" + stamped + "): the slot was dropped and recreated", lost, version,
          true);
    }
    if (tail.isEmpty() && topicStart == 0) {
      return lost("topic " + topic + " holds no record, but this connector wrote a change log there (replica version "
          + version + ", last commit " + stored.lastCommit() + "): the topic was deleted and created again", "The "
          + "replicas cannot catch up from it.", version, true);
    }
    if (tail.isPresent() && tail.get().replicaVersion() != null && !tail.get().replicaVersion().equals(version)) {
      return lost("topic " + topic + " ends in replica version " + tail.get().replicaVersion() + ", not in this "
          + "connector's " + version + ": the topic was deleted and written by another source", "The replicas cannot "
          + "catch up from it.", version, true);
    }
    if (forced != null && resyncAuto) {
      return new Decision.NewLineage(version, forced, true);
    }
    return new Decision.Continue();
  }

  /**
   * No offsets: a first start, unless the topic holds a lineage. Two cases of a slot are safe to
   * take (nothing was confirmed, so its confirmed position is still its consistent point): an empty
   * topic, and a topic whose last record is of the slot's own lineage (the source stopped before
   * its first offsets were stored: the same log goes on, its repeats skipped by consumers).
   * Anything else means the offsets were lost while the topic holds a lineage.
   */
  private Decision withoutOffsets(SlotState state, Optional<LogTail> tail) {
    if (tail.isEmpty()) {
      if (state == null || state.invalidated()) {
        return new Decision.FirstStart(null, state != null);
      }
      return new Decision.FirstStart(state.confirmedFlush(), false);
    }
    Watermark logVersion = tail.get().replicaVersion();
    if (continuesNewLineage(state, tail)) {
      return new Decision.FirstStart(state.confirmedFlush(), false);
    }
    String logNow = "topic " + topic + " holds a change log of replica version " + logVersion + " (last watermark "
        + tail.get().entry().watermark() + ")";
    if (!resyncAuto) {
      if (state == null) {
        throw new LineageLost("no offsets are stored for this connector and replication slot " + slot + " does not "
            + "exist, but " + logNow, "Starting now would append a second lineage to it. Either give the connector "
            + "an empty topic (and rebuild the replicas from it), restore the connector's offsets and slot, or set "
            + "resync.auto=true for the source to start a new lineage in this topic by itself.");
      }
      throw new LineageLost("no offsets are stored for this connector, but replication slot " + slot + " exists "
          + "(confirmed up to " + state.confirmedFlush() + ") and " + logNow + ": the connector's offsets were lost "
          + "(offsets topic deleted or reset, connector renamed, or its source partition changed)", "It cannot tell "
          + "where the log ends upstream. To continue the existing log: restore the offsets (stop the connector, then "
          + "PATCH /connectors/<name>/offsets). To start a new lineage: set resync.auto=true (the source does it by "
          + "itself and the replicas follow), or drop the slot (SELECT pg_drop_replication_slot('" + slot + "')), "
          + "delete or rename topic " + topic + ", and rebuild the replicas.");
    }
    return new Decision.NewLineage(logVersion, "the connector's offsets were lost while " + logNow,
        state != null);
  }

  /**
   * The slot is valid, has confirmed nothing, and its consistent point is the log's replica
   * version: this slot wrote the log's last lineage and no offsets of it were stored yet.
   */
  private static boolean continuesNewLineage(SlotState state, Optional<LogTail> tail) {
    return state != null && !state.invalidated() && state.confirmedFlush() != null && tail.isPresent()
        && tail.get().replicaVersion() != null
        && tail.get().replicaVersion().equals(Watermark.fromLsn(state.confirmedFlush()));
  }

  private Decision lost(String cause, String consequence, Watermark version, boolean slotExists) {
    if (!resyncAuto) {
      throw new LineageLost(cause, consequence + " " + resyncAdvice(slot));
    }
    return new Decision.NewLineage(version, cause, slotExists);
  }

  /** What an operator does about a lineage that ended. */
  static String resyncAdvice(String slot) {
    return "Resync: set resync.auto=true for the source to start a new lineage by itself (the replicas follow it), "
        + "or by hand: delete the connector's offsets (or rename the connector), drop slot " + slot + " if it still "
        + "exists, and rebuild the replicas (operations.md, \"Resync\").";
  }
}
