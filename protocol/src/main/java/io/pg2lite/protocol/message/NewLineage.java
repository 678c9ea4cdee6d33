package io.pg2lite.protocol.message;

import java.util.Objects;

/**
 * Marks a first-start transaction that begins a new lineage in a log that had one before: the
 * source could not continue the old lineage (its slot was lost or dropped, the log lost its tail,
 * its offsets were lost) and, as its operator allowed ({@code resync.auto}), started again from a
 * new slot. Every table is created anew and backfilled, so a consumer holding the old lineage
 * builds its replica again from here, and nothing of the old lineage is needed after this begin.
 *
 * @param previous the replica version of the lineage this one replaces, as the source knew it
 * @param reason why the old lineage could not go on, for humans (logs, metrics)
 */
public record NewLineage(String previous, String reason) {
  public NewLineage {
    Objects.requireNonNull(previous, "previous");
    Objects.requireNonNull(reason, "reason");
  }
}
