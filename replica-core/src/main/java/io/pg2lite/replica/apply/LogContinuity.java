package io.pg2lite.replica.apply;

import io.pg2lite.replica.file.ReplicaState;

/**
 * The rule that the replica applies the change log without a gap: each record must be the one
 * after the record before it. "After" is decided by the records' sequence numbers
 * ({@link io.pg2lite.protocol.message.ChangeLogHeaders#SEQ}), not by Kafka offsets, which have
 * holes (transaction markers, aborted transactions) that a gap could hide in.
 *
 * <p>It needs nothing but the records Connect hands to the task, so it is always on: records
 * deleted by retention below the replica's offset (the consumer then resets to the log start, and
 * would otherwise skip them silently), or a consumer moved to another offset, give a record whose
 * number is higher than the next one expected, and the task stops saying the replica is too far
 * behind. A number lower than expected at a later offset means a second writer, and stops too.
 *
 * <p>Records at or below the last offset taken are Connect delivering again what the task has
 * already seen (a retry of a batch, a seek back to the replica's offset): they are passed over,
 * never applied twice. {@link #restart} goes back to what the replica file holds, after a
 * rollback, a rebalance or a restart.
 *
 * <p>A new replica must start at number 0, the log's first record. Records without a number
 * (written before numbers existed) are accepted in offset order, and the rule resumes at the next
 * numbered record.
 */
public final class LogContinuity {
  private long lastOffset = -1;
  /** The number the next record must carry; null when unknown (after records without numbers). */
  private Long expected = 0L;

  /** Follows on from what the replica file holds. */
  public void restart(ReplicaState committed) {
    if (committed.isEmpty()) {
      lastOffset = -1;
      expected = 0L;
    } else {
      lastOffset = committed.offset();
      expected = committed.seq() == null ? null : committed.seq() + 1;
    }
  }

  /**
   * Starts over at a given record: the next one taken must be the one at {@code offset} with
   * number {@code seq} (null when the log carries none). A replica built for a new lineage starts
   * so at the lineage's first record, wherever the log is (a topic created again starts at 0).
   */
  public void startAt(long offset, Long seq) {
    lastOffset = offset - 1;
    expected = seq;
  }

  /** The offset of the last record taken; -1 before any. */
  public long lastOffset() {
    return lastOffset;
  }

  /**
   * Whether the record at {@code offset} with number {@code seq} (null if it has none) is to be
   * applied: false for one already taken.
   *
   * @throws LogGapException when it does not follow the last record taken
   */
  public boolean admit(String topic, int partition, long offset, Long seq) {
    if (offset <= lastOffset) {
      return false;
    }
    if (seq != null && expected != null && seq.longValue() != expected) {
      throw new LogGapException(topic, partition, offset, seq, expected, lastOffset);
    }
    lastOffset = offset;
    expected = seq == null ? null : seq + 1;
    return true;
  }

  /** A record that does not follow the last one the replica took. */
  public static final class LogGapException extends RuntimeException {
    private static final long serialVersionUID = 1L;
    private final boolean recordsGone;
    private final String gap;

    /**
     * True when records the replica needs are missing (deleted by retention, or the consumer moved
     * past them): its lineage cannot go on in this log. False for records out of order.
     */
    public boolean recordsGone() {
      return recordsGone;
    }

    /** The gap in a few words, without advice: which records are missing where. */
    public String gap() {
      return gap;
    }

    LogGapException(String topic, int partition, long offset, long seq, long expected, long lastOffset) {
      super(seq > expected
          ? "replica too far behind, resync: it needs change-log record number " + expected
              + (lastOffset < 0 ? " (the log's first record: a new replica replays the whole log)"
                  : " (the one after offset " + lastOffset + ")")
              + " but " + topic + "-" + partition + "@" + offset + " is number " + seq + "; the "
              + (seq - expected) + " records in between are gone (deleted by retention, or the consumer was moved "
              + "past them). Nothing of them was applied. Rebuild the replica from a copy of a current replica, "
              + "or from the start of a log that still holds them, and raise the topic's retention."
          : "change-log record " + topic + "-" + partition + "@" + offset + " is number " + seq
              + " but number " + expected + " was expected after offset " + lastOffset + ": the log has a second "
              + "writer, or records out of order; nothing of it was applied");
      this.recordsGone = seq > expected;
      this.gap = topic + "-" + partition + "@" + offset + " is change-log record number " + seq + ", but the replica "
          + "needs number " + expected + (recordsGone ? ": the " + (seq - expected) + " records in between were "
          + "deleted (retention, or the consumer was moved past them)" : "");
    }
  }
}
