package io.pg2lite.source.kafka;

import java.util.function.LongSupplier;

/**
 * When the source closes a Kafka transaction (exactly-once mode). A Kafka commit is synchronous
 * (flush, offsets, commit marker: tens of milliseconds), so committing after every upstream
 * transaction caps the source at a few thousand transactions per second.
 *
 * <p>Rule: a commit always lands on a complete upstream transaction (the caller only asks at one).
 * While the source is behind (the replication stream hands over full batches) complete upstream
 * transactions accumulate in one Kafka transaction for up to {@code maxIntervalNanos}; once it is
 * caught up (a batch smaller than full), it commits at once, so latency is never traded for
 * throughput when there is nothing to catch up.
 */
public final class KafkaCommitPolicy {
  private final long maxIntervalNanos;
  private final int fullBatch;
  private final LongSupplier nanoClock;
  private long lastCommit;

  public KafkaCommitPolicy(long maxIntervalMillis, int fullBatch, LongSupplier nanoClock) {
    this.maxIntervalNanos = maxIntervalMillis * 1_000_000L;
    this.fullBatch = fullBatch;
    this.nanoClock = nanoClock;
    this.lastCommit = nanoClock.getAsLong();
  }

  /**
   * Whether to commit at the last complete upstream transaction of a batch of
   * {@code batchEvents} replication events.
   */
  public boolean shouldCommit(int batchEvents) {
    long now = nanoClock.getAsLong();
    if (batchEvents < fullBatch || now - lastCommit >= maxIntervalNanos) {
      lastCommit = now;
      return true;
    }
    return false;
  }
}
