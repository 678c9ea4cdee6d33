package io.pg2lite.source.metrics;

import io.pg2lite.connect.metrics.StageTimes;
import io.pg2lite.protocol.message.ChangeLogEntry;
import io.pg2lite.protocol.message.Commit;
import io.pg2lite.source.transaction.Emitted;
import java.time.Instant;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import org.apache.kafka.connect.source.SourceRecord;

/**
 * The source's latency stages for live transactions, followed by their commit entries: Postgres
 * commit → read from the replication stream (walsender, pgoutput, Debezium's decoder) → handed to
 * Connect by {@code poll()} (the task's queue, encoding) → acknowledged by Kafka
 * ({@code commitRecord}: acks at-least-once, the Kafka transaction committed exactly-once).
 *
 * <p>Marks are kept by identity of the change-log entry, then of its record, until the next step
 * finds them. The entry, not the {@link Emitted} that carries it: while a backfill is required,
 * the multiplexer stamps the backfill state into each one's position and hands on a new
 * {@code Emitted} with the same entry ({@link Emitted#withPosition}). Keyed by the {@code Emitted},
 * the marks of every commit written during a copy were never found: their stage times were lost,
 * and they stayed, with their entries and positions, until {@link #MAX_MARKS} cleared them (the
 * soak of issue 28 found it: the source worker's live heap rose by about 2 MB a minute with a copy
 * every 3 minutes). Whatever a restart or a lost lineage drops is forgotten with {@link #reset},
 * and the maps are bounded so that marks never found (records Connect never acknowledges) cannot
 * pile up.
 * {@code acknowledged} runs on the producer's thread at-least-once, hence the lock.
 */
public final class SourceStages {
  public static final int READ = 0;
  public static final int HANDED = 1;
  public static final int ACKNOWLEDGED = 2;
  public static final int TOTAL = 3;
  private static final int MAX_MARKS = 100_000;

  private record Mark(long commitToReadUs, long readNanos, long handedNanos) {}

  private final StageTimes times;
  private final Map<ChangeLogEntry, Mark> read = new IdentityHashMap<>();
  private final Map<SourceRecord, Mark> handed = new IdentityHashMap<>();

  SourceStages(StageTimes times) {
    this.times = times;
  }

  public static StageTimes create() {
    return new StageTimes("postgres commit → read", "read → handed to Connect", "handed → acknowledged by Kafka",
        "postgres commit → acknowledged by Kafka");
  }

  /** Entries made from events the stream handed over at {@code readAt} ({@code readNanos} monotonic). */
  public synchronized void read(List<Emitted> emitted, Instant readAt, long readNanos) {
    long readUs = StageTimes.micros(readAt);
    for (Emitted e : emitted) {
      Instant committed = commitTime(e);
      if (committed != null) {
        if (read.size() >= MAX_MARKS) {
          read.clear();
        }
        read.put(e.entry(), new Mark(readUs - StageTimes.micros(committed), readNanos, 0));
      }
    }
  }

  /** {@code e} went out of {@code poll()} as {@code record} at {@code nanos}. */
  public synchronized void handed(Emitted e, SourceRecord record, long nanos) {
    Mark m = e.entry() == null ? null : read.remove(e.entry());
    if (m != null) {
      if (handed.size() >= MAX_MARKS) {
        handed.clear();
      }
      handed.put(record, new Mark(m.commitToReadUs(), m.readNanos(), nanos));
    }
  }

  /** Kafka has {@code record}, as of {@code nanos}. */
  public synchronized void acknowledged(SourceRecord record, long nanos) {
    Mark m = handed.remove(record);
    if (m != null) {
      long toHand = (m.handedNanos() - m.readNanos()) / 1000;
      long toAck = (nanos - m.handedNanos()) / 1000;
      times.record(READ, m.commitToReadUs());
      times.record(HANDED, toHand);
      times.record(ACKNOWLEDGED, toAck);
      times.record(TOTAL, m.commitToReadUs() + toHand + toAck);
    }
  }

  /** Marks waiting for their next step (tests). */
  synchronized int pendingMarks() {
    return read.size() + handed.size();
  }

  /** Forgets every mark: the entries and records they belong to will not come back. */
  public synchronized void reset() {
    read.clear();
    handed.clear();
  }

  private static Instant commitTime(Emitted e) {
    return e.entry() != null && e.entry().message() instanceof Commit c ? c.commitTime() : null;
  }
}
