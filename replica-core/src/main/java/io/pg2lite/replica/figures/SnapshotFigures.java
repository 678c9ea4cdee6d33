package io.pg2lite.replica.figures;

/**
 * What the metrics (the sink's MBean, a follower's figures) show about snapshots, read from whoever takes and restores them: the
 * metrics read these figures, and nothing in the snapshot code knows the metrics exist.
 * Implementations answer from any thread.
 */
public interface SnapshotFigures {
  /** Snapshots published since the task started. */
  long taken();

  /** The change-log offset of the last snapshot published, -1 before the first. */
  long lastOffset();

  long lastBytes();

  long lastMillis();

  /** The offset of the snapshot the replica was restored from at start, -1 when none was. */
  long restoredOffset();

  /** The oldest offset a new replica could start from; -1 when unknown (may ask Kafka: the metrics throttle it). */
  long oldestRestorable();

  /**
   * Since when taking snapshots has failed (epoch ms; the store unreachable, a full disk), -1 while
   * they succeed: the replica goes on meanwhile, and the schedule tries again at each interval.
   */
  long failingSince();

  /** Snapshots off (or the replica not open yet). */
  SnapshotFigures NONE = new SnapshotFigures() {
    @Override public long taken() { return 0; }
    @Override public long lastOffset() { return -1; }
    @Override public long lastBytes() { return 0; }
    @Override public long lastMillis() { return 0; }
    @Override public long restoredOffset() { return -1; }
    @Override public long oldestRestorable() { return -1; }
    @Override public long failingSince() { return -1; }
  };
}
