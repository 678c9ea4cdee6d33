package io.pg2lite.replica.file;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ReplicaFileTest {
  @TempDir
  Path dir;

  /**
   * A burst applied while a reader holds an old snapshot grows the WAL past the limit (no
   * checkpoint can copy past the reader); once the reader is gone, a checkpoint and the next
   * write bring the file back to {@link ReplicaFile#WAL_SIZE_LIMIT_BYTES} instead of leaving the
   * burst's size on the disk.
   */
  @Test
  void theWalShrinksBackToItsLimitAfterABurstThatAReaderHeldOpen() throws Exception {
    Path path = dir.resolve("replica.db");
    Path wal = dir.resolve("replica.db-wal");
    try (ReplicaFile replica = ReplicaFile.open(path, "WAL", "NORMAL", 1000)) {
      Connection w = replica.connection();
      try (Statement s = w.createStatement()) {
        s.execute("CREATE TABLE t (id INTEGER PRIMARY KEY, payload TEXT)");
        s.execute("INSERT INTO t VALUES (0, 'first')");
      }
      try (Connection reader = ReplicaFile.connect(path, 1000, true)) {
        reader.setAutoCommit(false);
        try (Statement r = reader.createStatement(); ResultSet rs = r.executeQuery("SELECT count(*) FROM t")) {
          rs.next(); // the read transaction now holds its snapshot
          try (Statement s = w.createStatement()) { // about 48 MB in 12,000 rows of 4 KB
            s.execute("WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 12000) "
                + "INSERT INTO t (payload) SELECT randomblob(4000) FROM n");
          }
        }
        long burst = Files.size(wal);
        assertTrue(burst > 2 * ReplicaFile.WAL_SIZE_LIMIT_BYTES, "the burst grew the WAL to " + burst);
        reader.rollback();
      }
      assertTrue(replica.checkpoint(false), "nothing holds the WAL any more");
      try (Statement s = w.createStatement()) {
        s.execute("INSERT INTO t (payload) VALUES ('after')");
      }
      long after = Files.size(wal);
      assertTrue(after <= ReplicaFile.WAL_SIZE_LIMIT_BYTES, "the WAL kept " + after + " bytes");
    }
  }
}
