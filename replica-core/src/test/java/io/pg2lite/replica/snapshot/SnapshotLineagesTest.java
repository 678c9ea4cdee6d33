package io.pg2lite.replica.snapshot;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Snapshots around a new lineage: the schedule is held while the new replica is built, and the
 * snapshots of a retired lineage are deleted from the store, those of other lineages kept.
 */
class SnapshotLineagesTest {
  @TempDir Path tmp;

  @Test
  void retiringALineageDeletesItsSnapshotsOnly() throws Exception {
    DirectorySnapshotStore store = new DirectorySnapshotStore(tmp.resolve("store"));
    try (LiveReplica live = new LiveReplica(tmp.resolve("live.db"))) {
      live.commitRows(3);
      SnapshotTaker taker = new SnapshotTaker(live.file, store, 10, 5000, Clock.systemUTC());
      SnapshotManifest old = taker.take(-1).orElseThrow();
      SnapshotManifest kept = store.publish(live.file, new SnapshotManifest(null, "4tys80", "4tys80.01", "log", 0, 40,
          40L, 0, null, Instant.now()));
      List<SnapshotManifest> gone = taker.retire("log", 0, v -> v.equals(LiveReplica.VERSION));
      assertEquals(List.of(old), gone);
      assertEquals(List.of(kept), store.list("log", 0, (n, why) -> { }));
    }
  }

  @Test
  void aHeldScheduleTakesNoSnapshotAndWorkHandedToItRunsInItsTurn() throws Exception {
    DirectorySnapshotStore store = new DirectorySnapshotStore(tmp.resolve("store"));
    try (LiveReplica live = new LiveReplica(tmp.resolve("live.db"))) {
      live.commitRows(3);
      SnapshotTaker taker = new SnapshotTaker(live.file, store, 10, 5000, Clock.systemUTC());
      List<SnapshotSchedule.Taken> taken = new CopyOnWriteArrayList<>();
      try (SnapshotSchedule schedule = new SnapshotSchedule("test", taker, Duration.ofMillis(20), taken::add,
          e -> { })) {
        schedule.hold(true);
        Thread.sleep(300);
        int whileHeld = taken.size();
        assertTrue(whileHeld <= 1, "at most one snapshot, begun before the hold: " + whileHeld);
        live.commitRows(3);
        Thread.sleep(300);
        assertEquals(whileHeld, taken.size(), "none while held, though the replica moved");
        CountDownLatch ran = new CountDownLatch(1);
        schedule.execute(ran::countDown);
        assertTrue(ran.await(5, TimeUnit.SECONDS), "work handed to the schedule runs on its thread");
        schedule.hold(false);
        long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
        while (taken.size() == whileHeld && System.nanoTime() < until) {
          Thread.sleep(20);
        }
        assertTrue(taken.size() > whileHeld, "snapshots go on once let go");
      }
    }
  }
}
