package io.pg2lite.replica.lineage;

import static io.pg2lite.replica.lineage.LineageLog.V1;
import static io.pg2lite.replica.lineage.LineageLog.V2;
import static io.pg2lite.replica.lineage.LineageLog.V3;
import static io.pg2lite.replica.lineage.ReplicaFiles.batch;
import static io.pg2lite.replica.lineage.ReplicaFiles.ids;
import static io.pg2lite.replica.lineage.ReplicaFiles.range;
import static io.pg2lite.replica.lineage.ReplicaFiles.version;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pg2lite.replica.file.ReplicaFile;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The swap's file work: what makes it safe (SQLite follows the link and names the WAL after the
 * target, so two lineages never share a -wal or -shm file), which files of the old lineage it
 * deletes, and a link it did not make.
 */
class ReplicaSwapTest {
  private static final String REASON = "replication slot pg2lite is missing";
  @TempDir Path dir;

  @Test
  void sqliteOpensALinksTargetAndNamesItsWalAfterTheTarget() throws Exception {
    Path target = dir.resolve("replica.db.lineage-" + V2);
    Path link = dir.resolve("replica.db");
    try (Connection c = ReplicaFile.connect(target, 5000, false); Statement s = c.createStatement()) {
      s.execute("PRAGMA journal_mode=WAL");
      s.execute("CREATE TABLE t (x)");
    }
    Files.createSymbolicLink(link, target.getFileName());
    try (Connection c = ReplicaFile.connect(link, 5000, false); Statement s = c.createStatement()) {
      s.execute("INSERT INTO t VALUES (1)");
      try (ResultSet rs = s.executeQuery("PRAGMA database_list")) {
        rs.next();
        assertEquals(target.toRealPath().toString(), rs.getString("file"), "SQLite opened the link's target");
      }
      assertTrue(Files.exists(dir.resolve("replica.db.lineage-" + V2 + "-wal")), "the WAL is named after the target");
      assertTrue(Files.exists(dir.resolve("replica.db.lineage-" + V2 + "-shm")));
      assertFalse(Files.exists(dir.resolve("replica.db-wal")), "never after the link");
      assertFalse(Files.exists(dir.resolve("replica.db-shm")));
    }
  }

  /**
   * A reader holding the old file keeps its WAL and shared memory from being checkpointed away by
   * the sink's close. The swap deletes the first (regular) file's sidecars at once; an old lineage
   * file and its sidecars a grace period later, so that a reader that resolved the link to the old
   * name still opens it. Either way the reader goes on reading through its open descriptors.
   */
  @Test
  void eachSwapDeletesTheOldLineagesFilesWhileTheirReadersGoOn() throws Exception {
    Path path = dir.resolve("replica.db");
    try (ReplicaLineages l = ReplicaFiles.open(path, new ArrayList<>(), LineageEvents.NONE)) {
      LineageLog log = new LineageLog().firstStart(V1, "a").copy("a", 1, 3, true);
      batch(l, log.records());
      try (Connection first = ReplicaFile.connect(path, 5000, true)) {
        assertEquals(List.of(1L, 2L, 3L), ids(first));
        int done = log.size();
        log.newLineage(V2, REASON, "a").copy("a", 1, 5, true);
        batch(l, log.from(done));
        assertFalse(Files.exists(dir.resolve("replica.db-wal")), "the regular file's WAL is deleted");
        assertFalse(Files.exists(dir.resolve("replica.db-shm")));
        assertEquals(range(1, 3), ids(first), "its reader still reads the first lineage");

        Path second = dir.resolve("replica.db.lineage-" + V2);
        try (Connection reader = ReplicaFile.connect(path, 5000, true)) {
          assertEquals(range(1, 5), ids(reader));
          done = log.size();
          log.newLineage(V3, REASON, "a").copy("a", 1, 7, true);
          batch(l, log.from(done));
          List<Path> secondFiles = List.of(dir.resolve(second.getFileName() + "-wal"),
              dir.resolve(second.getFileName() + "-shm"), second);
          assertTrue(l.retiredWaiting().containsAll(secondFiles), "the lineage file and its sidecars wait out the grace: "
              + l.retiredWaiting());
          secondFiles.forEach(f -> assertTrue(Files.exists(f), f + " is still there"));
          try (Connection late = ReplicaFile.connect(second, 5000, true)) {
            assertEquals(range(1, 5), ids(late), "a reader that resolved the link before the swap opens the old name");
          }
          Instant swapped = Instant.now();
          assertEquals(List.of(), l.deleteRetired(swapped.plus(RetiredLineages.GRACE).minusSeconds(5)),
              "nothing before the grace has passed");
          assertEquals(secondFiles, l.deleteRetired(swapped.plus(RetiredLineages.GRACE).plusSeconds(1)));
          assertEquals(List.of(), l.retiredWaiting());
          for (Path gone : secondFiles) {
            assertFalse(Files.exists(gone), gone + " is deleted");
          }
          assertEquals(range(1, 5), ids(reader), "its reader still reads the second lineage");
        }
        assertEquals(V3, version(path));
        assertEquals(range(1, 7), ReplicaFiles.ids(path, "a"));
        assertEquals(range(1, 3), ids(first));
      }
    }
  }

  @Test
  void aLinkTheSinkDidNotMakeIsReplacedAndItsTargetLeftInPlace() throws Exception {
    Path elsewhere = Files.createDirectories(dir.resolve("disk")).resolve("mine.db");
    Path path = dir.resolve("replica.db");
    Files.createSymbolicLink(path, elsewhere);
    try (ReplicaLineages l = ReplicaFiles.open(path, new ArrayList<>(), LineageEvents.NONE)) {
      LineageLog log = new LineageLog().firstStart(V1, "a").copy("a", 1, 3, true);
      batch(l, log.records());
      int done = log.size();
      log.newLineage(V2, REASON, "a").copy("a", 1, 5, true);
      batch(l, log.from(done));
    }
    assertEquals(Path.of("replica.db.lineage-" + V2), Files.readSymbolicLink(path));
    assertEquals(V2, version(path));
    assertTrue(Files.exists(elsewhere), "the operator's file is left for the operator");
    assertEquals(V1, version(elsewhere));
  }

  private static List<Long> ids(Connection c) throws Exception {
    List<Long> out = new ArrayList<>();
    try (Statement s = c.createStatement(); ResultSet rs = s.executeQuery("SELECT id FROM a ORDER BY id")) {
      while (rs.next()) {
        out.add(rs.getLong(1));
      }
    }
    return out;
  }
}
