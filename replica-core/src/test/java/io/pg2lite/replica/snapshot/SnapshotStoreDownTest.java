package io.pg2lite.replica.snapshot;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A store that cannot be reached fails the snapshots only: each failure is told to the schedule's
 * listener (the metrics' "failing since"), the schedule tries again at each interval, and takes
 * snapshots again once the store is back. The replica itself is untouched.
 */
class SnapshotStoreDownTest {
  @TempDir Path tmp;

  /** A directory store that refuses to publish while {@code down} (an unreachable object store). */
  private static final class FlakyStore implements SnapshotStore {
    final DirectorySnapshotStore inner;
    final AtomicBoolean down = new AtomicBoolean(true);

    FlakyStore(Path dir) {
      inner = new DirectorySnapshotStore(dir);
    }

    @Override
    public SnapshotManifest publish(Path data, SnapshotManifest manifest) throws IOException {
      if (down.get()) {
        throw new java.net.ConnectException("store unreachable");
      }
      return inner.publish(data, manifest);
    }

    @Override
    public List<SnapshotManifest> list(String topic, int partition, SkipListener skipped) throws IOException {
      return inner.list(topic, partition, skipped);
    }

    @Override
    public void fetch(SnapshotManifest manifest, Path target) throws IOException, CorruptSnapshotException {
      inner.fetch(manifest, target);
    }

    @Override
    public void delete(SnapshotManifest manifest) throws IOException {
      inner.delete(manifest);
    }

    @Override
    public String describe() {
      return "flaky " + inner.describe();
    }
  }

  @Test
  void failuresAreToldAndRetriedAtEachIntervalUntilTheStoreIsBack() throws Exception {
    FlakyStore store = new FlakyStore(tmp.resolve("store"));
    try (LiveReplica live = new LiveReplica(tmp.resolve("live.db"))) {
      live.commitRows(3);
      SnapshotTaker taker = new SnapshotTaker(live.file, store, 10, 5000, Clock.systemUTC());
      List<SnapshotSchedule.Taken> taken = new CopyOnWriteArrayList<>();
      List<Exception> failed = new CopyOnWriteArrayList<>();
      try (SnapshotSchedule schedule = new SnapshotSchedule("test", taker, Duration.ofMillis(30), taken::add,
          failed::add)) {
        awaitTrue(() -> failed.size() >= 3);
        assertTrue(taken.isEmpty(), "nothing published while the store is down");
        assertTrue(failed.get(0).toString().contains("store unreachable"), failed.get(0).toString());
        live.commitRows(2); // the replica goes on meanwhile
        store.down.set(false);
        awaitTrue(() -> !taken.isEmpty());
        assertTrue(store.list(LiveReplica.TOPIC, 0, (n, why) -> { }).size() == 1, "published once back");
      }
    }
  }

  private static void awaitTrue(java.util.function.BooleanSupplier condition) throws InterruptedException {
    long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
    while (!condition.getAsBoolean()) {
      assertTrue(System.nanoTime() < until, "timed out");
      Thread.sleep(10);
    }
  }
}
