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
 * most one new lineage.
 */
public final class StrandedWatch implements AutoCloseable {
  private final ScheduledExecutorService timer;
  private final Function<String, Optional<String>> look;
  private volatile String version;
  private volatile Finding found;

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
  public void following(String replicaVersion) {
    version = replicaVersion;
    Finding f = found;
    if (f != null && !f.version().equals(replicaVersion)) {
      found = null;
    }
  }

  /** The reason a new lineage is needed for the lineage followed, once; null when none was found. */
  public String take() {
    Finding f = found;
    if (f == null || !f.version().equals(version)) {
      return null;
    }
    found = null;
    return f.reason();
  }

  private void lookNow() {
    String v = version;
    if (v == null || found != null) {
      return;
    }
    look.apply(v).ifPresent(reason -> found = new Finding(v, reason));
  }

  @Override
  public void close() {
    timer.shutdownNow();
  }
}
