package io.pg2lite.replica.figures;

import java.time.Instant;

/**
 * What the sink's MBean shows about lineages, read from whoever follows them (the metrics read
 * these figures; the lineage code does not know the metrics exist). Answers from any thread.
 */
public interface LineageFigures {
  /** The replica version of the published replica; "" while it holds none. */
  String replicaVersion();

  /** The replica version being built beside it; "" when none is. */
  String buildingVersion();

  /** When a build last replaced the published replica, in this task's life; null before. */
  Instant lastSwap();

  /**
   * Since when (epoch ms) the replica cannot follow its lineage (records it needs were deleted)
   * and waits for a new one ({@code resync.auto}); -1 when it follows.
   */
  long strandedSince();

  /** Not known yet (the replica not open). */
  LineageFigures NONE = new LineageFigures() {
    @Override public String replicaVersion() { return ""; }
    @Override public String buildingVersion() { return ""; }
    @Override public Instant lastSwap() { return null; }
    @Override public long strandedSince() { return -1; }
  };
}
