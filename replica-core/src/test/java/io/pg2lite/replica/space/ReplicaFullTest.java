package io.pg2lite.replica.space;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.function.LongSupplier;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.sqlite.SQLiteErrorCode;
import org.sqlite.SQLiteException;

/** Which of SQLite's failures mean a full replica, as sqlite-jdbc reports them. */
class ReplicaFullTest {
  private static final LongSupplier ROOMY = () -> 10L << 30;
  private static final LongSupplier NO_ROOM = () -> 4096;
  @TempDir Path dir;

  /** A real SQLITE_FULL: the replica's page cap (max_page_count) reached by an insert. */
  private SQLException realFull() throws SQLException {
    try (Connection c = DriverManager.getConnection("jdbc:sqlite:" + dir.resolve("capped.db"));
        Statement s = c.createStatement()) {
      s.execute("CREATE TABLE t (v BLOB)");
      s.execute("PRAGMA max_page_count = " + 4);
      return assertThrows(SQLException.class, () -> s.execute("INSERT INTO t SELECT randomblob(100000)"));
    }
  }

  @Test
  void sqliteFullIsRecognizedThroughTheWrappersAroundIt() throws SQLException {
    SQLException full = realFull();
    assertEquals(ReplicaFull.SQLITE_FULL, full.getErrorCode(), full.getMessage());
    assertTrue(ReplicaFull.in(full, ROOMY));
    RuntimeException wrapped = new RuntimeException("Cannot apply change-log record log-0@7",
        new Exception(full.getMessage(), full));
    assertTrue(ReplicaFull.in(wrapped, ROOMY), "found anywhere in the cause chain, whatever the free space");
    SQLException batch = new SQLException("batch entry 3: " + full.getMessage(), null, 13);
    assertTrue(ReplicaFull.in(batch, ROOMY), "a wrapper that keeps SQLite's code and tag");
    SQLException chained = new SQLException("batch failed");
    chained.setNextException(full);
    assertTrue(ReplicaFull.in(chained, ROOMY), "the next exception of a batch");
  }

  @Test
  void aFailedGrowthOfTheWalIndexIsFullOnlyWhenTheFilesystemHasNoRoom() {
    SQLiteException shm = new SQLiteException("[SQLITE_IOERR_SHMSIZE] I/O error within xShmMap while trying to "
        + "resize an existing shared memory segment (disk I/O error)", SQLiteErrorCode.SQLITE_IOERR_SHMSIZE);
    assertTrue(ReplicaFull.in(new RuntimeException(shm), NO_ROOM));
    assertFalse(ReplicaFull.in(shm, ROOMY), "with room it is a broken disk: permanent");
    assertFalse(ReplicaFull.in(shm, () -> -1), "free space unknown: not taken for a full disk");
  }

  @Test
  void otherFailuresAreNotAFullReplica() {
    assertFalse(ReplicaFull.in(new SQLiteException("[SQLITE_BUSY] database is locked", SQLiteErrorCode.SQLITE_BUSY),
        NO_ROOM));
    assertFalse(ReplicaFull.in(new SQLiteException("[SQLITE_IOERR_WRITE] disk I/O error",
        SQLiteErrorCode.SQLITE_IOERR_WRITE), NO_ROOM), "only the WAL index's growth is taken for a full disk");
    assertFalse(ReplicaFull.in(new SQLiteException("[SQLITE_CONSTRAINT_UNIQUE] UNIQUE constraint failed",
        SQLiteErrorCode.SQLITE_CONSTRAINT_UNIQUE), NO_ROOM));
    assertFalse(ReplicaFull.in(new SQLException("disk full", "53100", 13), NO_ROOM),
        "another driver's exception with code 13 (a Postgres SQLSTATE here) is not SQLite's");
    assertFalse(ReplicaFull.in(new IllegalStateException("bug"), NO_ROOM));
  }
}
