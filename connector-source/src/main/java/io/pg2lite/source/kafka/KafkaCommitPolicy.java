package io.pg2lite.source.kafka;

import java.util.function.LongSupplier;

/**
 * When the source closes a Kafka transaction (exactly-once mode). A Kafka commit is synchronous
 * (flush, offsets, commit marker: tens of milliseconds), so committing after every upstream
 * transaction caps the source at a few thousand transactions per second.
 *
 * <p>Rule 1, grouping: while the source is behind (the replication stream hands over full
 * batches) complete upstream transactions accumulate in one Kafka transaction for up to
 * {@code maxIntervalNanos}; once it is caught up (a batch smaller than full), it commits at the
 * last complete upstream transaction at once, so latency is never traded for throughput when
 * there is nothing to catch up.
 *
 * <p>Rule 2, splitting: Connect's exactly-once task keeps every record of an open Kafka
 * transaction in memory until it commits, and nothing in Connect bounds that. So once the open
 * Kafka transaction holds {@code splitRecords} records or {@code splitBytes} bytes of values, it
 * commits where it is, inside an upstream transaction if need be. A read_committed consumer then
 * sees a prefix of that upstream transaction before its commit (consumers act only on commit:
 * docs/protocol.md); a crash before the commit is closed on restart by a rollback and the whole
 * transaction again, as in at-least-once mode. The records' offsets stay those of the previous
 * commit, so a split never moves the position the source restarts from or confirms to Postgres.
 */
public final class KafkaCommitPolicy {
  private final long maxIntervalNanos;
  private final int fullBatch;
  private final long splitRecords;
  private final long splitBytes;
  private final LongSupplier nanoClock;
  private long lastCommit;
  private long openRecords;
  private long openBytes;

  public KafkaCommitPolicy(long maxIntervalMillis, int fullBatch, long splitRecords, long splitBytes,
      LongSupplier nanoClock) {
    this.maxIntervalNanos = maxIntervalMillis * 1_000_000L;
    this.fullBatch = fullBatch;
    this.splitRecords = splitRecords;
    this.splitBytes = splitBytes;
    this.nanoClock = nanoClock;
    this.lastCommit = nanoClock.getAsLong();
  }

  /** Counts records handed to Connect in the open Kafka transaction. */
  public void written(int records, long bytes) {
    openRecords += records;
    openBytes += bytes;
  }

  /**
   * Whether to commit at the last complete upstream transaction of a batch of
   * {@code batchEvents} replication events (rule 1).
   */
  public boolean shouldCommit(int batchEvents) {
    long now = nanoClock.getAsLong();
    if (batchEvents < fullBatch || now - lastCommit >= maxIntervalNanos || isFull()) {
      committed(now);
      return true;
    }
    return false;
  }

  /** Whether to commit now although an upstream transaction is open (rule 2). */
  public boolean shouldSplit() {
    if (isFull()) {
      committed(nanoClock.getAsLong());
      return true;
    }
    return false;
  }

  private boolean isFull() {
    return openRecords >= splitRecords || openBytes >= splitBytes;
  }

  private void committed(long now) {
    lastCommit = now;
    openRecords = 0;
    openBytes = 0;
  }
}
