package io.pg2lite.sink.replica;

/**
 * The replica's position, stored in the replica in the same SQLite transaction as the data it
 * describes: the lineage (replica version), the watermark of the last applied commit, and where
 * that commit record is in Kafka. All null/-1 for a replica that has applied nothing yet.
 */
public record ReplicaState(String replicaVersion, String watermark, String topic, int partition, long offset) {
  public static final ReplicaState EMPTY = new ReplicaState(null, null, null, -1, -1);

  public boolean isEmpty() {
    return watermark == null;
  }
}
