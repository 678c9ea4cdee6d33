package io.pg2lite.replica.file;

import io.pg2lite.protocol.watermark.Watermark;

/**
 * The replica's position, stored in the replica in the same SQLite transaction as the data it
 * describes: the lineage (replica version), the watermark of the last applied commit, where that
 * commit record is in Kafka, and its sequence number in the change log
 * ({@link io.pg2lite.protocol.message.ChangeLogHeaders#SEQ}). All null/-1 for a replica that has
 * applied nothing yet.
 *
 * @param seq the commit record's sequence number, or null when it carried none (written by a
 *     source older than sequence numbers) or the replica predates them
 */
public record ReplicaState(String replicaVersion, String watermark, String topic, int partition, long offset,
    Long seq) {
  public static final ReplicaState EMPTY = new ReplicaState(null, null, null, -1, -1, null);

  public boolean isEmpty() {
    return watermark == null;
  }

  /** The watermark of the last applied commit; null when {@link #isEmpty()}. */
  public Watermark lastCommit() {
    return watermark == null ? null : Watermark.parse(watermark);
  }
}
