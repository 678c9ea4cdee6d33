package io.pg2lite.replica.lineage;

import io.pg2lite.protocol.message.Begin;
import io.pg2lite.protocol.message.ChangeLogEntry;
import io.pg2lite.replica.apply.ApplyException;

/**
 * A look back through the log for the begin of a lineage whose records arrived without it: the
 * consumer skipped it (a topic deleted and created again starts at offset 0, below the offset the
 * replica asked for, and the consumer's reset may land past the new lineage's begin). The reader
 * seeks to the log start and passes over every record until that lineage's begin, which starts a
 * build; reaching the record that set off the search again without it means the begin is gone.
 */
final class LineageSearch {
  private final String version;
  private final ChangeLogRecord trigger;
  private final String replicaVersion;
  /** Where the sought version's first-start transaction began without declaring a lineage; null when none was seen. */
  private String unmarkedStart;

  /**
   * @param trigger the first record of {@code trigger.replicaVersion()} that did not follow a begin
   *     of it, decoded as {@code entry}
   * @param replicaVersion the version of the replica being written
   */
  LineageSearch(ChangeLogRecord trigger, ChangeLogEntry entry, String replicaVersion) {
    this.version = trigger.replicaVersion();
    this.trigger = trigger;
    this.replicaVersion = replicaVersion;
    passed(trigger, entry);
  }

  /**
   * Whether the sought version's first-start transaction was seen and declares no lineage: then
   * no begin of that version can (a repeated first-start transaction repeats its begin), and the
   * search need not go on.
   */
  boolean hopeless() {
    return unmarkedStart != null;
  }

  String version() {
    return version;
  }

  ChangeLogRecord trigger() {
    return trigger;
  }

  /** Whether the search has passed everything before its trigger: the record at {@code offset} is the trigger or later. */
  boolean exhausted(long offset) {
    return offset >= trigger.offset();
  }

  /** A record of the sought version that does not start a new lineage; a first-start begin without one is noted. */
  void passed(ChangeLogRecord r, ChangeLogEntry e) {
    if (unmarkedStart == null && e.pos() == 0 && e.message() instanceof Begin b && b.xid() == null && !b.backfill()
        && b.lineage() == null) {
      unmarkedStart = r.where();
    }
  }

  /**
   * Why the search failed, for the record that ended it: the sought version's records begin with
   * a first-start transaction that declares no lineage (another source, a slot recreated by hand:
   * the replica must be resynced), or the begin that declares it is no longer in the topic.
   */
  ApplyException notFound(ChangeLogRecord at) {
    String reason = unmarkedStart != null
        ? "the record belongs to replica version " + version + " but this replica was built from replica version "
            + replicaVersion + ", and the log does not declare that " + version + " replaces it (its first-start "
            + "transaction at " + unmarkedStart + " names no previous lineage: the source's slot was recreated "
            + "without resync.auto, or the topic belongs to another source); resync the replica"
        : "replica version " + version + " replaces this replica's " + replicaVersion + " (its records from "
            + trigger.where() + " on), but the begin that starts it is no longer in the topic (searched from the log "
            + "start up to " + trigger.where() + "): deleted by retention. The replica of " + version + " cannot be "
            + "built from this log: delete the replica file and start the sink again to restore a snapshot of "
            + "replica version " + version + " (snapshot.dir), or rebuild the replica (operations.md, \"Resync\")";
    return new ApplyException(at.topic(), at.partition(), at.offset(), "?", reason, null);
  }
}
