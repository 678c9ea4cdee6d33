package io.pg2lite.replica.space;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pg2lite.replica.space.ReplicaSpace;
import io.pg2lite.testkit.support.RecordingLogger;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.slf4j.event.Level;
import org.sqlite.SQLiteErrorCode;
import org.sqlite.SQLiteException;

/** One full replica, one ERROR; a reminder now and then; retries without end; one INFO when it is over. */
class FullReplicaRetriesTest {
  private static final long BACKOFF_MAX = 4_000;
  @TempDir Path dir;
  private long now = 1_700_000_000_000L;
  private final RecordingLogger log = new RecordingLogger();

  private FullReplicaRetries retries() {
    return new FullReplicaRetries(new ReplicaSpace(dir.resolve("r.db"), "replica.max.size.bytes", 0, true),
        BACKOFF_MAX, log, () -> now);
  }

  private static RuntimeException full() {
    return new RuntimeException("Cannot apply change-log record log-0@42 (watermark 0/10): SQLite commit failed",
        new SQLiteException("[SQLITE_FULL] Insertion failed because database is full (database or disk is full)",
            SQLiteErrorCode.SQLITE_FULL));
  }

  @Test
  void theFaultIsLoggedOnceAtErrorThenRemindedAtWarnAndRetriedForHours() {
    FullReplicaRetries r = retries();
    assertTrue(r.isFull(full()));
    assertEquals(-1, r.fullSince());
    assertEquals(500, r.failed(full(), 3 << 20));
    long began = now;
    assertEquals(began, r.fullSince());
    List<String> errors = log.at(Level.ERROR);
    assertEquals(1, errors.size(), log.lines().toString());
    assertTrue(errors.get(0).startsWith("ERROR The replica " + dir.resolve("r.db") + " is full: its filesystem has "),
        errors.get(0));
    assertTrue(errors.get(0).contains("needs about 9.9 MiB more (an estimate: twice the 3.0 MiB")
        && errors.get(0).endsWith("The failure: Cannot apply change-log record log-0@42 (watermark 0/10): SQLite "
        + "commit failed"), errors.get(0));
    assertEquals(1_000, r.failed(full(), 3 << 20));
    assertEquals(2_000, r.failed(full(), 3 << 20));
    assertEquals(4_000, r.failed(full(), 3 << 20));
    now += FullReplicaRetries.REMIND_MS - 1;
    assertEquals(4_000, r.failed(full(), 3 << 20), "never past retry.backoff.max.ms");
    assertEquals(1, log.lines().size(), "silent between reminders: " + log.lines());
    now += 1;
    r.failed(full(), 3 << 20);
    assertEquals(2, log.lines().size());
    assertTrue(log.lines().get(1).startsWith("WARN The replica " + dir.resolve("r.db")
        + " is still full after 300 s ("), log.lines().get(1));
    now += 24 * 3_600_000L;
    assertEquals(4_000, r.failed(full(), 3 << 20), "a day later it still retries: retry.timeout.ms does not apply");
    assertEquals(began, r.fullSince());
    assertEquals(1, log.at(Level.ERROR).size());
  }

  @Test
  void itIsOverOnceTheReplicaCommittedAndStayedClearOfItForTheLongestWait() {
    FullReplicaRetries r = retries();
    long began = now;
    r.failed(full(), 1000);
    now += 30_000;
    r.committed();
    now += BACKOFF_MAX - 1;
    r.settle();
    assertEquals(began, r.fullSince(), "not over yet: the next transaction may not fit either");
    r.failed(full(), 1000);
    now += 1_000;
    r.committed();
    now += BACKOFF_MAX - 1;
    r.settle();
    assertEquals(began, r.fullSince(), "a failure restarts the settling time");
    now += 1;
    r.settle();
    assertEquals(-1, r.fullSince());
    List<String> lines = log.lines();
    assertEquals(2, lines.size(), "one ERROR, one INFO, whatever happened between: " + lines);
    assertTrue(lines.get(1).startsWith("INFO The replica " + dir.resolve("r.db") + " is applied again after 34 s full"),
        lines.get(1));
    r.settle();
    r.committed();
    assertEquals(2, log.lines().size(), "healed once");
    assertEquals(500, r.failed(full(), 1000), "a new fault starts the backoff over");
    assertEquals(2, log.at(Level.ERROR).size(), "and is logged as a new fault");
  }

  @Test
  void aCommitWithoutAFaultIsNothingToReport() {
    FullReplicaRetries r = retries();
    r.committed();
    now += BACKOFF_MAX * 10;
    r.settle();
    assertTrue(log.lines().isEmpty(), log.lines().toString());
    assertFalse(r.isFull(new IllegalStateException("bug")));
  }
}
