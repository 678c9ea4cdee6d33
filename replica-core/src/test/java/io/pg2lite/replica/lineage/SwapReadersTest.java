package io.pg2lite.replica.lineage;

import static io.pg2lite.replica.lineage.LineageLog.V1;
import static io.pg2lite.replica.lineage.LineageLog.V2;
import static io.pg2lite.replica.lineage.LineageLog.V3;
import static io.pg2lite.replica.lineage.ReplicaFiles.batch;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.sqlite.SQLiteConfig;

/**
 * Readers through two resyncs (issue 35): while new lineages are built and swapped in, readers
 * that open the replica by its path every 10 ms never see an error, an empty table, or a table of
 * one lineage with the state row of another; readers holding a connection across a swap keep
 * reading the old lineage, consistently.
 */
class SwapReadersTest {
  /** Rows of table a in each lineage: disjoint ranges, so a count tells its lineage. */
  private static final int ROWS_V1 = 4;
  private static final int ROWS_V2 = 200;
  private static final int LIVE_V2 = 20;
  private static final int ROWS_V3 = 300;
  @TempDir Path dir;

  /** What one reader saw in one read transaction. */
  private record Seen(String version, long rows) {
    boolean consistent() {
      return switch (version) {
        case V1 -> rows == ROWS_V1;
        case V2 -> rows >= ROWS_V2 && rows <= ROWS_V2 + LIVE_V2;
        case V3 -> rows >= ROWS_V3;
        default -> false;
      };
    }
  }

  /** Opens the path every 10 ms, reads a's count and the state row in one read transaction, closes. */
  private static final class Reader extends Thread {
    private final Path path;
    private final boolean readOnly;
    private final AtomicBoolean stop;
    final List<Seen> seen = Collections.synchronizedList(new ArrayList<>());
    final List<String> errors = Collections.synchronizedList(new ArrayList<>());

    Reader(Path path, boolean readOnly, AtomicBoolean stop) {
      this.path = path;
      this.readOnly = readOnly;
      this.stop = stop;
      setDaemon(true);
    }

    @Override
    public void run() {
      while (!stop.get()) {
        try (Connection c = connect(path, readOnly)) {
          c.setAutoCommit(false);
          seen.add(look(c));
          c.commit();
        } catch (SQLException | RuntimeException e) {
          errors.add(e.toString());
        }
        try {
          Thread.sleep(10);
        } catch (InterruptedException e) {
          return;
        }
      }
    }
  }

  private static Connection connect(Path path, boolean readOnly) throws SQLException {
    SQLiteConfig cfg = new SQLiteConfig();
    cfg.setReadOnly(readOnly);
    cfg.setBusyTimeout(5000);
    return cfg.createConnection("jdbc:sqlite:" + path);
  }

  private static Seen look(Connection c) throws SQLException {
    try (Statement s = c.createStatement()) {
      long rows;
      try (ResultSet rs = s.executeQuery("SELECT count(*) FROM a")) {
        rs.next();
        rows = rs.getLong(1);
      }
      try (ResultSet rs = s.executeQuery("SELECT replica_version FROM \"_pg2lite.state\"")) {
        rs.next();
        return new Seen(rs.getString(1), rows);
      }
    }
  }

  /** A lineage's copy of a, 5 rows per backfill transaction, each its own batch, at a reader's pace. */
  private static void copySlowly(ReplicaLineages l, LineageLog log, int rows) throws InterruptedException {
    for (int from = 1; from <= rows; from += 5) {
      int done = log.size();
      log.copy("a", from, 5, from + 5 > rows);
      batch(l, log.from(done));
      Thread.sleep(3);
    }
  }

  @Test
  void readersNeverSeeAnErrorAnEmptyTableOrAMixOfLineages() throws Exception {
    Path path = dir.resolve("replica.db");
    AtomicBoolean stop = new AtomicBoolean();
    List<Reader> readers = List.of(new Reader(path, false, stop), new Reader(path, true, stop));
    try (ReplicaLineages l = ReplicaFiles.open(path, new ArrayList<>(), LineageEvents.NONE)) {
      LineageLog log = new LineageLog().firstStart(V1, "a").copy("a", 1, ROWS_V1, true);
      batch(l, log.records());
      readers.forEach(Thread::start);
      try (Connection held = connect(path, true); Connection heldInTransaction = connect(path, true)) {
        assertEquals(new Seen(V1, ROWS_V1), look(held));
        heldInTransaction.setAutoCommit(false);
        assertEquals(new Seen(V1, ROWS_V1), look(heldInTransaction));

        int done = log.size();
        log.newLineage(V2, "replication slot pg2lite was invalidated by Postgres (wal_removed)", "a");
        batch(l, log.from(done));
        copySlowly(l, log, ROWS_V2);
        assertTrue(Files.isSymbolicLink(path), "swapped");
        for (int i = 1; i <= LIVE_V2; i++) {
          done = log.size();
          log.insert("a", ROWS_V2 + i);
          batch(l, log.from(done));
          Thread.sleep(3);
        }
        assertEquals(new Seen(V1, ROWS_V1), look(held), "a connection opened before the swap reads the old lineage");
        assertEquals(new Seen(V1, ROWS_V1), look(heldInTransaction), "so does an open read transaction");
        heldInTransaction.commit();
        assertEquals(new Seen(V1, ROWS_V1), look(heldInTransaction), "and the next one, until it reopens");

        done = log.size();
        log.newLineage(V3, "the source's offsets were lost", "a");
        batch(l, log.from(done));
        copySlowly(l, log, ROWS_V3);
        assertEquals(Path.of("replica.db.lineage-" + V3), Files.readSymbolicLink(path), "swapped again");
        assertEquals(new Seen(V1, ROWS_V1), look(held), "the first lineage still, after a second swap");
      }
      Thread.sleep(100);
    } finally {
      stop.set(true);
      for (Reader r : readers) {
        r.join(10_000);
      }
    }
    for (Reader r : readers) {
      String who = r.readOnly ? "the read-only reader" : "the reader";
      assertEquals(List.of(), r.errors, who + " never fails");
      List<Seen> mixed = r.seen.stream().filter(s -> !s.consistent()).toList();
      assertEquals(List.of(), mixed, who + " never sees an empty table or a mix of lineages");
      List<String> order = r.seen.stream().map(Seen::version).distinct().toList();
      assertEquals(List.of(V1, V2, V3), order, who + " sees each lineage in turn, V1 throughout the first build");
      long v1 = r.seen.stream().filter(s -> s.version.equals(V1)).count();
      long v2 = r.seen.stream().filter(s -> s.version.equals(V2)).count();
      assertTrue(v1 >= 5 && v2 >= 5, who + " read during both builds: " + v1 + " and " + v2 + " times");
      assertEquals(V3, r.seen.get(r.seen.size() - 1).version(), who + " ends on the new lineage");
    }
  }
}
