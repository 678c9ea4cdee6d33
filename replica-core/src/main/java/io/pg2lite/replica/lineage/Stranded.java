package io.pg2lite.replica.lineage;

import io.pg2lite.connect.kafka.StrandedReplica;
import io.pg2lite.replica.file.ReplicaState;
import java.time.Duration;
import java.util.function.LongSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A replica whose lineage cannot go on in this log: records it needs were deleted from the topic
 * (retention, {@code kafka-delete-records}) and no snapshot restored it. With {@code resync.auto}
 * the sink does not fail: it keeps the replica as it is (readable, at its last commit), passes
 * over the rest of its lineage, and asks for a new one through its consumer group's committed
 * offset ({@link StrandedReplica}), which a source with {@code resync.auto} reads. A new lineage's
 * begin ends the state: the sink builds the new replica beside the old and swaps it in.
 *
 * <p>Said once as an ERROR with what to do, then as a WARN every {@link #REMINDER} while it lasts:
 * a task that waits must not look healthy.
 */
final class Stranded {
  private static final Logger LOG = LoggerFactory.getLogger(Stranded.class);
  static final Duration REMINDER = Duration.ofMinutes(5);

  private final String reason;
  private final String version;
  private final ReplicaState at;
  private final long sinceMs;
  private final LongSupplier clock;
  private long lastSaidMs;

  private Stranded(String reason, String version, ReplicaState at, LongSupplier clock) {
    this.reason = reason;
    this.version = version;
    this.at = at;
    this.clock = clock;
    this.sinceMs = clock.getAsLong();
    this.lastSaidMs = sinceMs;
  }

  /**
   * The replica, at {@code at}, cannot follow lineage {@code version} for {@code reason} (an empty
   * replica names the lineage of the log it could not start); logs the ERROR.
   */
  static Stranded begin(String reason, String version, ReplicaState at, String replica, LongSupplier clock) {
    Stranded s = new Stranded(reason, version, at, clock);
    LOG.error("Replica {} (replica version {}, watermark {}) cannot follow its lineage any more: {}. resync.auto is on: "
        + "the task keeps running and readers keep the replica as it is; its consumer group's committed offset asks "
        + "for a new lineage ({}), which a source connector with resync.auto=true starts by itself (within its "
        + "resync.check.interval.ms); this sink then builds the new replica beside this one and swaps it in. With "
        + "a source without resync.auto, resync by hand (operations.md, \"Resync\").", replica, version,
        at.isEmpty() ? "none: the replica is empty" : at.watermark(), reason, s.mark().metadata());
    return s;
  }

  /** The mark the consumer group commits while the replica is stranded. */
  StrandedReplica mark() {
    return new StrandedReplica(version, at.isEmpty() ? 0 : at.offset() + 1);
  }

  /** The lineage whose records are passed over. */
  String version() {
    return version;
  }

  long sinceMs() {
    return sinceMs;
  }

  /** Reminds, as a WARN, at most every {@link #REMINDER}. */
  void remind(String replica) {
    long now = clock.getAsLong();
    if (now - lastSaidMs >= REMINDER.toMillis()) {
      lastSaidMs = now;
      LOG.warn("Replica {} has been waiting {} min for a new lineage: {} (its group's offset says {})", replica,
          (now - sinceMs) / 60_000, reason, mark().metadata());
    }
  }
}
