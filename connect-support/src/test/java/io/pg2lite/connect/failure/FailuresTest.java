package io.pg2lite.connect.failure;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.net.ConnectException;
import java.net.SocketException;
import java.sql.SQLException;
import java.time.Duration;
import org.junit.jupiter.api.Test;

class FailuresTest {
  private static SQLException pg(String state) {
    return new SQLException("postgres says no", state);
  }

  /** What sqlite-jdbc throws: no SQLSTATE, the result code as vendor code, its name in the message. */
  private static SQLException sqlite(int code, String name) {
    return new SQLException("[" + name + "] The database file is locked (database is locked)", null, code);
  }

  @Test
  void postgresStatesThatRetryingCanHeal() {
    for (String s : new String[] {"08000", "08006", "08001", "08P01", "53300", "57P01", "57P02", "57P03", "40001",
        "40P01"}) {
      assertTrue(Failures.isTransient(pg(s)), s);
    }
    for (String s : new String[] {"42501", "42P01", "23505", "53100", "22P02", "XX000", "55000"}) {
      assertFalse(Failures.isTransient(pg(s)), s + " (privilege, missing table, duplicate, disk full, bad value, "
          + "internal, slot in use) is permanent");
    }
  }

  @Test
  void sqliteBusyAndLockedAreTransientOtherSqliteErrorsAreNot() {
    assertTrue(Failures.isTransient(sqlite(5, "SQLITE_BUSY")));
    assertTrue(Failures.isTransient(sqlite(517, "SQLITE_BUSY_SNAPSHOT")));
    assertTrue(Failures.isTransient(sqlite(6, "SQLITE_LOCKED")));
    assertFalse(Failures.isTransient(sqlite(13, "SQLITE_FULL")), "a full disk needs a person");
    assertFalse(Failures.isTransient(sqlite(19, "SQLITE_CONSTRAINT")));
    assertFalse(Failures.isTransient(new SQLException("vendor 5 without SQLite's name", null, 5)));
  }

  @Test
  void causesAreFollowedAndTheFirstTransientOneDecides() {
    SQLException lost = pg("08006");
    RuntimeException wrapped = new RuntimeException("debezium failed", new IllegalStateException("producer", lost));
    assertSame(lost, Failures.transientCause(wrapped));
    assertTrue(Failures.isTransient(new IOException(new ConnectException("Connection refused"))));
    assertTrue(Failures.isTransient(new SocketException("Connection reset")));
    assertFalse(Failures.isTransient(new NullPointerException()), "a bug is never retried");
    assertFalse(Failures.isTransient(new RuntimeException(new IllegalArgumentException("bad config"))));
    RuntimeException loop = new RuntimeException("a");
    RuntimeException other = new RuntimeException("b", loop);
    loop.initCause(other);
    assertFalse(Failures.isTransient(loop), "a cause cycle ends");
  }

  @Test
  void kafkaAndConnectRetriableExceptions() {
    assertTrue(Failures.isTransient(new org.apache.kafka.common.errors.TimeoutException("metadata")));
    assertTrue(Failures.isTransient(new org.apache.kafka.common.errors.NotLeaderOrFollowerException("moved")));
    assertTrue(Failures.isTransient(new org.apache.kafka.connect.errors.RetriableException("later")));
    assertTrue(Failures.isTransient(new org.apache.kafka.connect.errors.ConnectException("wrapped",
        new org.apache.kafka.common.errors.DisconnectException("gone"))));
    assertFalse(Failures.isTransient(new org.apache.kafka.common.errors.TopicAuthorizationException("acl")));
    assertFalse(Failures.isTransient(new org.apache.kafka.connect.errors.ConnectException("bad config")));
  }

  @Test
  void backoffDoublesToItsMaximumAndGivesUpAfterTheBound() {
    long[] now = {0};
    Backoff b = new Backoff(Duration.ofMillis(100), Duration.ofMillis(400), Duration.ofSeconds(2), () -> now[0]);
    assertEquals(100, b.next());
    assertEquals(200, b.next());
    assertEquals(400, b.next());
    assertEquals(400, b.next());
    now[0] = 1999;
    assertEquals(400, b.next());
    assertEquals(1999, b.failingForMs());
    now[0] = 2000;
    assertEquals(-1, b.next(), "faults lasting the whole bound end the retries");
    b.reset();
    assertEquals(0, b.failingForMs());
    assertEquals(100, b.next(), "a success starts over");
    assertThrows(IllegalArgumentException.class,
        () -> new Backoff(Duration.ZERO, Duration.ofMillis(1), Duration.ofSeconds(1), () -> 0));
  }
}
