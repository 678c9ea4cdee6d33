package io.pg2lite.connect.metrics;

import java.time.Instant;
import java.util.List;

/**
 * The latency stages of a task that applies the change log to a replica (the sink, a follower):
 * from the Postgres commit to the batch holding the transaction's commit record reaching the task
 * (the source, Kafka and the fetch), then to the replica's SQLite commit that made it visible.
 */
public final class ReplicaStages {
  public static final int FETCHED = 0;
  public static final int APPLIED = 1;
  public static final int TOTAL = 2;

  private ReplicaStages() {}

  public static StageTimes create() {
    return new StageTimes("postgres commit → fetched", "fetched → replica commit", "postgres commit → replica commit");
  }

  /**
   * One batch, handed over at {@code fetched} ({@code fetchedNanos} on the monotonic clock) and
   * committed to the replica at {@code committedNanos}, held the commits of live transactions that
   * committed in Postgres at {@code commitTimes}.
   */
  public static void record(StageTimes stages, Instant fetched, long fetchedNanos, List<Instant> commitTimes,
      long committedNanos) {
    long applyUs = (committedNanos - fetchedNanos) / 1000;
    long fetchedUs = StageTimes.micros(fetched);
    for (Instant t : commitTimes) {
      long toFetch = fetchedUs - StageTimes.micros(t);
      stages.record(FETCHED, toFetch);
      stages.record(APPLIED, applyUs);
      stages.record(TOTAL, toFetch + applyUs);
    }
  }
}
