package io.pg2lite.connect.kafka;

import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * What a replica that can no longer follow its lineage says to the source, through the one channel
 * both already share: the metadata of the offset its consumer group commits on the change log.
 *
 * <p>A replica is stranded when records it needs were deleted from the topic (retention,
 * {@code kafka-delete-records}) and no snapshot restores it: only a new lineage, copied again
 * from Postgres, can bring it back. A sink (or a follower) with {@code resync.auto} then keeps
 * running, commits its own position (below the topic's log start) with this mark, and waits for
 * the new lineage. A source with {@code resync.auto} looks for the mark in the groups that have
 * members (a deleted sink's group keeps its last commit for days, and must not start a lineage)
 * and starts one when the mark names its current lineage and an offset the topic no longer holds.
 *
 * <p>The text form is {@code pg2lite stranded replica-version=<V> needs=<offset>}; anything else
 * (a healthy sink commits no metadata) is no mark.
 *
 * @param replicaVersion the lineage the replica holds
 * @param needs the offset of the record it needs next
 */
public record StrandedReplica(String replicaVersion, long needs) {
  private static final Pattern FORM = Pattern.compile("pg2lite stranded replica-version=(\\S+) needs=(\\d+)");

  /** The offset metadata that carries this mark. */
  public String metadata() {
    return "pg2lite stranded replica-version=" + replicaVersion + " needs=" + needs;
  }

  /** The mark in {@code metadata}, if it is one. */
  public static Optional<StrandedReplica> parse(String metadata) {
    if (metadata == null) {
      return Optional.empty();
    }
    Matcher m = FORM.matcher(metadata);
    if (!m.matches()) {
      return Optional.empty();
    }
    try {
      return Optional.of(new StrandedReplica(m.group(1), Long.parseLong(m.group(2))));
    } catch (NumberFormatException e) {
      return Optional.empty();
    }
  }
}
