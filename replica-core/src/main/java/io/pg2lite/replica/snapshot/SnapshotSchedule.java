package io.pg2lite.replica.snapshot;

import java.time.Duration;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Takes a snapshot every interval on a thread of its own, beside the task's apply thread. A
 * snapshot that fails is logged and tried again at the next interval: the replica itself is
 * fine, so a snapshot fault never stops the task. Only one snapshot runs at a time.
 */
public final class SnapshotSchedule implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(SnapshotSchedule.class);
  private final SnapshotTaker taker;
  private final ScheduledExecutorService thread;
  private final Consumer<Taken> listener;
  private final Consumer<Exception> failed;
  private long lastOffset = -1;
  /** Held while the replica is frozen for a new lineage's build: a snapshot would copy an old lineage. */
  private volatile boolean held;

  /** One published snapshot and how long it took, for the metrics. */
  public record Taken(SnapshotManifest manifest, long millis) {}

  /**
   * @param listener told of each snapshot published
   * @param failed told of each snapshot that failed (it is tried again at the next interval)
   */
  public SnapshotSchedule(String connector, SnapshotTaker taker, Duration interval, Consumer<Taken> listener,
      Consumer<Exception> failed) {
    this.taker = taker;
    this.listener = listener;
    this.failed = failed;
    this.thread = Executors.newSingleThreadScheduledExecutor(r -> {
      Thread t = new Thread(r, "pg2lite-snapshot-" + connector);
      t.setDaemon(true);
      return t;
    });
    thread.scheduleWithFixedDelay(this::takeOne, interval.toMillis(), interval.toMillis(), TimeUnit.MILLISECONDS);
  }

  /**
   * Holds the schedule (no snapshot is taken while held) or lets it go on. A snapshot already
   * under way finishes; work handed to {@link #execute} after it runs after it.
   */
  public void hold(boolean hold) {
    held = hold;
  }

  /** Runs {@code work} on the schedule's thread, after a snapshot under way: store work that must not race one. */
  public void execute(Runnable work) {
    thread.execute(work);
  }

  private void takeOne() {
    if (held) {
      return;
    }
    long t0 = System.nanoTime();
    try {
      taker.take(lastOffset).ifPresent(m -> {
        lastOffset = m.offset();
        long ms = (System.nanoTime() - t0) / 1_000_000;
        LOG.info("Snapshot {} published: offset {}, watermark {}, {} bytes, {} ms", m.id(), m.offset(), m.watermark(),
            m.bytes(), ms);
        listener.accept(new Taken(m, ms));
      });
    } catch (Exception e) {
      if (!thread.isShutdown()) {
        LOG.warn("Snapshot failed, trying again at the next interval: {}", e.toString(), e);
        failed.accept(e);
      }
    }
  }

  /** Stops the schedule, cancelling a copy under way; waits for it to end. */
  @Override
  public void close() {
    thread.shutdownNow();
    taker.cancel();
    try {
      if (!thread.awaitTermination(30, TimeUnit.SECONDS)) {
        LOG.warn("A snapshot is still being taken 30 s after the task stopped");
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
