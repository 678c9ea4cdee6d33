package io.pg2lite.replica.snapshot;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Taking a snapshot of a replica the applier keeps writing, and restoring it: real SQLite files,
 * the sink's own applier, a directory store.
 */
class SnapshotTakeRestoreTest {
  @TempDir
  Path tmp;

  private static SnapshotRestorer.LogView log(long start, String version) {
    return new SnapshotRestorer.LogView() {
      @Override
      public long logStart() {
        return start;
      }

      @Override
      public Optional<String> replicaVersion() {
        return Optional.ofNullable(version);
      }
    };
  }

  @Test
  void aSnapshotTakenWhileTheApplierWritesHoldsWholeTransactionsAndTheirPosition() throws Exception {
    DirectorySnapshotStore store = new DirectorySnapshotStore(tmp.resolve("store"));
    try (LiveReplica live = new LiveReplica(tmp.resolve("live.db"))) {
      for (int i = 0; i < 50; i++) {
        live.commitRows(100);
      }
      SnapshotTaker taker = new SnapshotTaker(live.file, store, 3, 5000, Clock.systemUTC());
      AtomicBoolean stop = new AtomicBoolean();
      Future<Integer> writer = Executors.newSingleThreadExecutor().submit(() -> {
        int n = 0;
        while (!stop.get()) {
          live.commitRows(100);
          n++;
        }
        return n;
      });
      SnapshotManifest m;
      try {
        m = taker.take(-1).orElseThrow();
      } finally {
        stop.set(true);
      }
      assertTrue(writer.get() > 0, "the applier went on during the copy");
      Path restored = tmp.resolve("restored.db");
      SnapshotRestorer.Outcome out = new SnapshotRestorer(store, 5000).restoreIfMissing(restored, "log", 0, log(0,
          LiveReplica.VERSION));
      assertEquals(Optional.of(m), out.restored());
      List<String> rows = LiveReplica.rows(restored);
      // Offsets 0-2 create the table; transaction k (k = 1, 2, ...) is a begin, 100 inserts and
      // its commit at offset 2 + 102k, inserting ids 100(k-1)+1 .. 100k. The snapshot holds exactly
      // the transactions up to its offset.
      long transactions = (m.offset() - 2) / 102;
      assertEquals(2 + transactions * 102, m.offset(), "the manifest's offset is a commit record's");
      assertEquals(transactions * 100, rows.size(), "whole transactions only, up to offset " + m.offset());
      assertEquals("1=row 1", rows.get(0));
      assertEquals(rows.size() + "=row " + rows.size(), rows.get(rows.size() - 1));
    }
  }

  @Test
  void nothingNewNoSnapshot_andOnlyTheNewestKeepAreKept() throws Exception {
    DirectorySnapshotStore store = new DirectorySnapshotStore(tmp.resolve("store"));
    try (LiveReplica live = new LiveReplica(tmp.resolve("live.db"))) {
      SnapshotTaker taker = new SnapshotTaker(live.file, store, 2, 5000, Clock.systemUTC());
      long last = -1;
      for (int i = 0; i < 4; i++) {
        live.commitRows(10);
        last = taker.take(last).orElseThrow().offset();
      }
      assertEquals(Optional.empty(), taker.take(last), "no commit since the last snapshot");
      List<SnapshotManifest> kept = store.list("log", 0, (n, why) -> { });
      assertEquals(2, kept.size());
      assertEquals(last, kept.get(0).offset());
    }
  }

  @Test
  void theRestorerTakesTheNewestCoveredSnapshotOfTheLogsVersionAndSkipsBadOnes() throws Exception {
    DirectorySnapshotStore store = new DirectorySnapshotStore(tmp.resolve("store"));
    SnapshotManifest older;
    SnapshotManifest newer;
    SnapshotManifest newest;
    try (LiveReplica live = new LiveReplica(tmp.resolve("live.db"))) {
      SnapshotTaker taker = new SnapshotTaker(live.file, store, 10, 5000, Clock.systemUTC());
      live.commitRows(5);
      older = taker.take(-1).orElseThrow();
      live.commitRows(5);
      newer = taker.take(-1).orElseThrow();
      live.commitRows(5);
      newest = taker.take(-1).orElseThrow();
    }
    // The newest is truncated: skipped, the next older one is restored.
    Path dir = tmp.resolve("store/log-0");
    byte[] data = Files.readAllBytes(dir.resolve(newest.id() + ".db"));
    Files.write(dir.resolve(newest.id() + ".db"), java.util.Arrays.copyOf(data, data.length / 2));
    SnapshotRestorer restorer = new SnapshotRestorer(store, 5000);
    SnapshotRestorer.Outcome out = restorer.restoreIfMissing(tmp.resolve("a.db"), "log", 0, log(0, LiveReplica.VERSION));
    assertEquals(Optional.of(newer), out.restored());
    assertTrue(out.skipped().get(0).contains("truncated"), out.skipped().toString());
    assertEquals(10, LiveReplica.rows(tmp.resolve("a.db")).size());

    // A replica that has applied something is never replaced.
    assertEquals(Optional.empty(), restorer.restoreIfMissing(tmp.resolve("a.db"), "log", 0, log(0,
        LiveReplica.VERSION)).restored());

    // The log no longer holds what follows 'newer': only nothing fits (older is older still).
    SnapshotRestorer.Outcome none = restorer.restoreIfMissing(tmp.resolve("b.db"), "log", 0, log(newer.offset() + 2,
        LiveReplica.VERSION));
    assertEquals(Optional.empty(), none.restored());
    assertTrue(none.skipped().stream().anyMatch(s -> s.contains("older than the topic's start")), none.skipped()
        .toString());
    assertTrue(!Files.exists(tmp.resolve("b.db")), "nothing restored, nothing created");

    // Another lineage in the log: none of these snapshots fits.
    assertEquals(Optional.empty(), restorer.restoreIfMissing(tmp.resolve("c.db"), "log", 0, log(0, "other"))
        .restored());
    // The log starts right after 'older': it still fits when the others are gone.
    store.delete(newer);
    assertEquals(Optional.of(older), restorer.restoreIfMissing(tmp.resolve("d.db"), "log", 0, log(older.offset() + 1,
        LiveReplica.VERSION)).restored());
  }

  @Test
  void aDataFileWithAMatchingChecksumButAnotherPositionIsRefused() throws Exception {
    DirectorySnapshotStore store = new DirectorySnapshotStore(tmp.resolve("store"));
    try (LiveReplica live = new LiveReplica(tmp.resolve("live.db"))) {
      live.commitRows(3);
      SnapshotManifest real = new SnapshotTaker(live.file, store, 10, 5000, Clock.systemUTC()).take(-1).orElseThrow();
      // A manifest that claims a later offset for the same data (size and checksum right).
      SnapshotManifest lying = new SnapshotManifest("00000000000000000099-0000000f", real.replicaVersion(),
          real.watermark(), real.topic(), real.partition(), 99, null, real.bytes(), real.sha256(), real.createdAt());
      Path dir = tmp.resolve("store/log-0");
      Files.copy(dir.resolve(real.id() + ".db"), dir.resolve(lying.id() + ".db"));
      Files.write(dir.resolve(lying.id() + ".json"), lying.toJson());
      store.delete(real);
    }
    SnapshotRestorer.Outcome out = new SnapshotRestorer(store, 5000).restoreIfMissing(tmp.resolve("r.db"), "log", 0,
        log(0, LiveReplica.VERSION));
    assertEquals(Optional.empty(), out.restored());
    assertTrue(out.skipped().get(0).contains("differs from its manifest"), out.skipped().toString());
  }

}
