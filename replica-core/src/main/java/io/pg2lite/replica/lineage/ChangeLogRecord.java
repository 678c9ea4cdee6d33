package io.pg2lite.replica.lineage;

/**
 * One change-log record as a reader of the topic gets it, whatever reads it (the Connect task, a
 * follower with its own consumer): where it is, its sequence number and lineage headers, and its
 * value, not yet decoded.
 *
 * @param seq the {@code pg2lite.seq} header, null when the record carries none
 * @param replicaVersion the {@code pg2lite.replica.version} header, null when the record carries none
 */
public record ChangeLogRecord(String topic, int partition, long offset, Long seq, String replicaVersion,
    byte[] value) {
  /** Where the record is, for messages: {@code topic-partition@offset}. */
  public String where() {
    return topic + "-" + partition + "@" + offset;
  }
}
