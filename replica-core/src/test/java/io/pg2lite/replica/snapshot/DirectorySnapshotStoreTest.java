package io.pg2lite.replica.snapshot;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The directory store's publishing, listing and verification rules, on real files. */
class DirectorySnapshotStoreTest {
  @TempDir
  Path tmp;

  private static SnapshotManifest at(long offset) {
    return new SnapshotManifest(null, "4e6720", "0a", "log", 0, offset, offset, 0, null, Instant.parse(
        "2026-12-01T00:00:00Z").plusSeconds(offset));
  }

  private Path data(String text) throws Exception {
    Path f = Files.createTempFile(tmp, "data", ".db");
    Files.writeString(f, text);
    return f;
  }

  @Test
  void publishedSnapshotsAreListedNewestFirstAndFetchedVerified() throws Exception {
    DirectorySnapshotStore store = new DirectorySnapshotStore(tmp.resolve("store"));
    SnapshotManifest a = store.publish(data("first"), at(10));
    SnapshotManifest b = store.publish(data("second!"), at(20));
    assertEquals(7, b.bytes());
    assertEquals(64, b.sha256().length());
    assertTrue(b.id().startsWith("00000000000000000020-"), b.id());
    List<SnapshotManifest> listed = store.list("log", 0, (n, why) -> { throw new AssertionError(n + why); });
    assertEquals(List.of(b, a), listed);
    assertEquals(List.of(), store.list("log", 1, (n, why) -> { }), "another partition's snapshots are its own");
    Path target = tmp.resolve("restored.db");
    store.fetch(b, target);
    assertEquals("second!", Files.readString(target));
    try (var files = Files.list(tmp.resolve("store/log-0"))) {
      assertTrue(files.noneMatch(f -> f.toString().endsWith(".tmp")), "no temporary file left");
    }
  }

  @Test
  void aTruncatedOrAlteredDataFileIsRefusedAndNothingIsLeftAtTheTarget() throws Exception {
    DirectorySnapshotStore store = new DirectorySnapshotStore(tmp.resolve("store"));
    SnapshotManifest truncated = store.publish(data("0123456789"), at(10));
    SnapshotManifest altered = store.publish(data("abcdefghij"), at(20));
    Path dir = tmp.resolve("store/log-0");
    Files.writeString(dir.resolve(truncated.id() + ".db"), "01234");
    Files.writeString(dir.resolve(altered.id() + ".db"), "abcdefghiJ");
    Path target = tmp.resolve("restored.db");
    CorruptSnapshotException t = assertThrows(CorruptSnapshotException.class, () -> store.fetch(truncated, target));
    assertTrue(t.getMessage().contains("5 bytes, its manifest says 10"), t.getMessage());
    CorruptSnapshotException a = assertThrows(CorruptSnapshotException.class, () -> store.fetch(altered, target));
    assertTrue(a.getMessage().contains("SHA-256"), a.getMessage());
    assertFalse(Files.exists(target));
    assertFalse(Files.exists(tmp.resolve("restored.db.restore.tmp")));
  }

  @Test
  void aSnapshotWithoutItsManifestOrWithABadOneIsNotListed() throws Exception {
    DirectorySnapshotStore store = new DirectorySnapshotStore(tmp.resolve("store"));
    SnapshotManifest good = store.publish(data("good"), at(30));
    Path dir = tmp.resolve("store/log-0");
    Files.writeString(dir.resolve("00000000000000000040-00000001.db"), "data whose publisher died before the manifest");
    Files.writeString(dir.resolve("00000000000000000050-00000002.db"), "x");
    Files.writeString(dir.resolve("00000000000000000050-00000002.json"), "{\"format\":1,\"id\":");
    SnapshotManifest sixty = at(60);
    Files.write(dir.resolve("00000000000000000060-00000003.json"), new SnapshotManifest("00000000000000000060-00000003",
        sixty.replicaVersion(), sixty.watermark(), "log", 0, 60, null, 1, "ab", sixty.createdAt()).toJson());
    List<String> skipped = new ArrayList<>();
    assertEquals(List.of(good), store.list("log", 0, (n, why) -> skipped.add(n + ": " + why)));
    assertEquals(2, skipped.size(), skipped.toString());
    assertTrue(skipped.stream().anyMatch(s -> s.contains("not valid JSON")), skipped.toString());
    assertTrue(skipped.stream().anyMatch(s -> s.contains("data file is missing")), skipped.toString());
  }

  @Test
  void theManifestRoundTripsAndRefusesANewerFormat() throws Exception {
    SnapshotManifest m = at(7).withId("x");
    m = new SnapshotManifest("x", m.replicaVersion(), m.watermark(), m.topic(), m.partition(), m.offset(), null, 3,
        "ab", m.createdAt());
    assertEquals(m, SnapshotManifest.fromJson("x", m.toJson()));
    byte[] newer = new String(m.toJson(), StandardCharsets.UTF_8).replace("\"format\":1", "\"format\":2")
        .getBytes(StandardCharsets.UTF_8);
    CorruptSnapshotException e = assertThrows(CorruptSnapshotException.class, () -> SnapshotManifest.fromJson("x",
        newer));
    assertTrue(e.getMessage().contains("format 2"), e.getMessage());
  }
}
