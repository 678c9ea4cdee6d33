package io.pg2lite.source.replication;

import java.util.concurrent.Executor;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Reads the position in the offsets Connect stored away from the polling thread. A read is a trip
 * to Kafka's offsets topic ({@code OffsetStorageReader} reads it to its end) with no timeout of
 * its own: when the broker leading that topic hangs, the read waits out the worker's admin
 * timeouts, a minute. Made on the polling thread, that stalled the whole pipeline for as long as
 * the broker hung, although the read only decides how much WAL Postgres may recycle (the soak of
 * issue 28 met it twice: a broker paused for 60 s held the change log for 61–62 s, where the
 * stream otherwise healed 10–18 s into the pause). Here one daemon thread makes the reads, one at
 * a time; the polling thread asks for one and confirms whatever the last read found.
 *
 * <p>Invariant: {@link #latest} only ever holds a position Connect had stored, so a confirmation
 * from it is never ahead of what Kafka has durably (the rule of {@link HealingReplicationStream}).
 */
final class StoredPositionReads implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(StoredPositionReads.class);

  private final Supplier<Long> storedLsn;
  private final Executor reads;
  private final ExecutorService own;
  /** A read asked for and not finished (polling thread's view; set by the reading thread). */
  private volatile boolean reading;
  private volatile Long latest;
  private volatile boolean failing;

  /** Reads on a daemon thread of its own, named for {@code slot}. */
  static StoredPositionReads onOwnThread(String slot, Supplier<Long> storedLsn) {
    ExecutorService e = Executors.newSingleThreadExecutor(r -> {
      Thread t = new Thread(r, "pg2lite-stored-offsets-" + slot);
      t.setDaemon(true);
      return t;
    });
    return new StoredPositionReads(storedLsn, e, e);
  }

  /** Reads on {@code reads} (a test's {@code Runnable::run} reads at once, on the caller's thread). */
  static StoredPositionReads on(Executor reads, Supplier<Long> storedLsn) {
    return new StoredPositionReads(storedLsn, reads, null);
  }

  private StoredPositionReads(Supplier<Long> storedLsn, Executor reads, ExecutorService own) {
    this.storedLsn = storedLsn;
    this.reads = reads;
    this.own = own;
  }

  /** Asks for a read, unless one is under way (then its answer will do). Never waits. */
  void request() {
    if (reading) {
      return;
    }
    reading = true;
    try {
      reads.execute(this::read);
    } catch (RuntimeException rejected) { // closed
      reading = false;
    }
  }

  /** What the last read found: the commit LSN in the stored offsets, or null before any. */
  Long latest() {
    return latest;
  }

  private void read() {
    try {
      Long lsn = storedLsn.get();
      if (lsn != null) {
        latest = lsn;
      }
      if (failing) {
        LOG.info("The stored offsets can be read again; confirmations to the slot go on");
        failing = false;
      }
    } catch (RuntimeException e) {
      if (!failing) { // once per streak: the next request tries again, and the slot only holds more WAL meanwhile
        LOG.warn("Cannot read the offsets Connect stored, so the slot is not told what it may recycle for now: {}",
            e.toString());
        failing = true;
      }
    } finally {
      reading = false;
    }
  }

  @Override
  public void close() {
    if (own != null) {
      own.shutdownNow(); // a read waiting on Kafka ends when Connect closes its offset reader
    }
  }
}
