package io.pg2lite.snapshot.s3;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

/** The object names: the directory store's layout under a prefix, ids that sort by offset. */
class S3KeyLayoutTest {
  private final SnapshotKeys keys = new SnapshotKeys("p/");

  @Test
  void layout() {
    assertEquals("p/log-3/", keys.folder("log", 3));
    assertEquals("p/log-3/x.db", keys.data("log", 3, "x"));
    assertEquals("p/log-3/x.json", keys.manifest("log", 3, "x"));
  }

  @Test
  void idsSortByOffsetAndDoNotCollide() {
    String nine = SnapshotKeys.newId(9);
    String ten = SnapshotKeys.newId(10);
    assertTrue(nine.matches("00000000000000000009-[0-9a-f]{8}"), nine);
    assertTrue(nine.compareTo(ten) < 0);
    assertNotEquals(SnapshotKeys.newId(10), SnapshotKeys.newId(10));
  }

  @Test
  void onlyDirectChildrenOfTheFolderAreSnapshots() {
    assertEquals("a", SnapshotKeys.idOf("p/log-1/", "p/log-1/a.json", ".json"));
    assertNull(SnapshotKeys.idOf("p/log-1/", "p/log-10/a.json", ".json"));
    assertNull(SnapshotKeys.idOf("p/log-1/", "p/log-1/sub/a.json", ".json"));
    assertNull(SnapshotKeys.idOf("p/log-1/", "p/log-1/.json", ".json"));
    assertNull(SnapshotKeys.idOf("p/log-1/", "p/log-1/a.db", ".json"));
  }
}
