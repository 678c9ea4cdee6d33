package io.pg2lite.connect.kafka.hanging;

import org.apache.kafka.common.TopicPartition;

/**
 * A transaction that a partition holds open although its coordinator does not have it open there
 * (KIP-664): nothing will write its marker, so it pins the partition's last stable offset, and
 * every read_committed reader of the partition waits behind it.
 *
 * @param partition where it is open
 * @param producerId its producer, as the partition's leader knows it ({@code describeProducers})
 * @param producerEpoch the producer's epoch there
 * @param coordinatorEpoch the coordinator epoch the partition last saw for the producer; an abort
 *     marker must carry it
 * @param startOffset the offset of its first record: the partition's last stable offset while it is open
 * @param lastWriteMs when the producer last wrote to the partition (the batch's timestamp, epoch ms)
 * @param coordinator what the producer's coordinator says instead, for the operator
 */
public record HangingTransaction(TopicPartition partition, long producerId, int producerEpoch, int coordinatorEpoch,
    long startOffset, long lastWriteMs, String coordinator) {

  /** Whether {@code other} is the same open transaction (what the coordinator says may have been put otherwise). */
  public boolean sameAs(HangingTransaction other) {
    return partition.equals(other.partition) && producerId == other.producerId
        && producerEpoch == other.producerEpoch && startOffset == other.startOffset;
  }

  @Override
  public String toString() {
    return partition + " producer " + producerId + " epoch " + producerEpoch + " open from offset " + startOffset;
  }
}
