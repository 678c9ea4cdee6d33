package io.pg2lite.source.lineage;

import java.util.Optional;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;

/**
 * Looks for stranded replicas ({@link StrandedReplicas}) every interval on a thread of its own, so
 * that the Admin calls never slow the task's poll: the task asks {@link #take()} between reads. A
 * finding is kept only for the lineage it was made for: once the task follows another lineage
 * ({@link #following}), a finding about the old one is dropped, so one stranded replica starts at
 * most one new lineage. That holds for a look still running when the lineage changes too: its
 * finding is dropped when it ends, and the next look is at the new lineage (kept otherwise, it
 * would stop every look until the task's next start-up).
 */
public final class StrandedWatch implements AutoCloseable {
  private final ScheduledExecutorService timer;
  private final Function<String, Optional<String>> look;
  /** The lineage followed and what was found about it; guarded by {@code this}. */
  private String version;
  private Finding found;

  private record Finding(String version, String reason) {}

  /**
   * @param look why a new lineage is needed for the lineage named, or empty
   * @param name names the thread
   */
  public StrandedWatch(Function<String, Optional<String>> look, long intervalMs, String name) {
    this.look = look;
    this.timer = Executors.newSingleThreadScheduledExecutor(r -> {
      Thread t = new Thread(r, "pg2lite-stranded-" + name);
      t.setDaemon(true);
      return t;
    });
    timer.scheduleWithFixedDelay(this::lookNow, intervalMs, intervalMs, TimeUnit.MILLISECONDS);
  }

  /** The task now writes lineage {@code replicaVersion}: what is looked for from now on. */
  public synchronized void following(String replicaVersion) {
    version = replicaVersion;
    if (found != null && !found.version().equals(replicaVersion)) {
      found = null;
    }
  }

  /** The reason a new lineage is needed for the lineage followed, once; null when none was found. */
  public synchronized String take() {
    Finding f = found;
    found = null;
    return f == null ? null : f.reason();
  }

  private void lookNow() {
    String v;
    synchronized (this) {
      if (version == null || found != null) {
        return;
      }
      v = version;
    }
    Optional<String> reason = look.apply(v); // Admin calls: not under the lock the task's poll takes
    synchronized (this) {
      if (reason.isPresent() && v.equals(version)) {
        found = new Finding(v, reason.get());
      }
    }
  }

  @Override
  public void close() {
    timer.shutdownNow();
  }
}
