package io.pg2lite.source.replication;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pg2lite.connect.failure.Healing;
import java.sql.SQLException;
import java.time.Instant;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.slf4j.helpers.NOPLogger;

class HealingReplicationStreamTest {
  private long now = 0;
  private boolean opensFail;
  private Long stored = 100L;
  private Long resume = 200L;
  private final List<Long> opensAt = new ArrayList<>();
  private final List<FakeSession> sessions = new ArrayList<>();
  private final Healing healing = Healing.forRetries("The replication stream of slot s", 4_000, 60_000,
      "retry.timeout.ms", NOPLogger.NOP_LOGGER, () -> now);
  private final HealingReplicationStream stream = new HealingReplicationStream("s", resumeAfter -> {
    opensAt.add(resumeAfter);
    if (opensFail) {
      throw new SQLException("the database system is starting up", "57P03");
    }
    FakeSession s = new FakeSession();
    sessions.add(s);
    return s;
  }, 10, 0, () -> stored, () -> resume, healing, StoredPositionReads.on(Runnable::run, () -> stored));

  @Test
  void startResumesFromTheStoredOffsetsAndAFaultResumesAfterTheLastTransactionHandedOut() throws Exception {
    stream.start();
    FakeSession first = sessions.get(0);
    first.next.add(new ReplicationEvent.TxBegin(1, Instant.EPOCH));
    assertEquals(1, stream.poll().size());
    first.fault = new SQLException("connection lost", "08006");
    List<ReplicationEvent> out = stream.poll();
    assertInstanceOf(ReplicationEvent.Interrupted.class, out.get(0));
    assertTrue(first.abandoned, "a failed session is abandoned, never reused");
    assertEquals(List.of(), stream.poll(), "nothing while the backoff runs");
    assertEquals(1, sessions.size());
    now += 500;
    stream.poll();
    assertEquals(List.of(100L, 200L), opensAt, "first from the stored offsets, then from the last complete transaction");
  }

  @Test
  void aFailedReopenIsRetriedWithoutAnnouncingAgain() throws Exception {
    stream.start();
    sessions.get(0).fault = new SQLException("terminating connection due to administrator command", "57P01");
    assertEquals(1, stream.poll().size());
    now += 500;
    resume = null;
    opensFail = true;
    assertEquals(List.of(), stream.poll(), "a failed open announces nothing: the cut was announced");
    assertEquals(1_000, healing.untilNextAttempt());
  }

  @Test
  void aPermanentFaultIsThrown() throws Exception {
    stream.start();
    sessions.get(0).fault = new SQLException("permission denied for database", "42501");
    RuntimeException e = assertThrows(RuntimeException.class, stream::poll);
    assertTrue(e.getMessage().contains("permission denied"), e.getMessage());
  }

  @Test
  void onlyStoredPositionsAreConfirmedAndOnlyWhenAsked() throws Exception {
    stream.start();
    FakeSession s = sessions.get(0);
    stream.poll();
    assertEquals(List.of(), s.confirmed, "nothing confirmed before Connect stored offsets");
    stream.acknowledgeStoredPositions();
    stream.poll();
    assertEquals(List.of(100L), s.confirmed);
    stored = 150L;
    stream.acknowledgeStoredPositions();
    stream.poll();
    assertEquals(List.of(100L), s.confirmed, "at most one confirmation a second");
  }

  /**
   * A read of the stored offsets that hangs (their broker hangs) holds only the reading thread:
   * polls go on, and the confirmation follows once the read returns. On the polling thread it held
   * the change log for as long as the broker hung (the soak of issue 28).
   */
  @Test
  void aHangingReadOfTheStoredOffsetsNeverHoldsThePoll() throws Exception {
    List<FakeSession> opened = new ArrayList<>();
    java.util.concurrent.CountDownLatch hang = new java.util.concurrent.CountDownLatch(1);
    HealingReplicationStream h = new HealingReplicationStream("h2", resumeAfter -> {
      FakeSession f = new FakeSession();
      opened.add(f);
      return f;
    }, 10, 0, () -> 100L, () -> resume, healing, StoredPositionReads.onOwnThread("h2", () -> {
      try {
        hang.await();
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
      return 250L;
    }));
    h.start();
    FakeSession session = opened.get(opened.size() - 1);
    h.acknowledgeStoredPositions();
    long t0 = System.nanoTime();
    for (int i = 0; i < 20; i++) {
      session.next.add(new ReplicationEvent.TxBegin(i, Instant.EPOCH));
      assertEquals(1, h.poll().size(), "polls go on while the read hangs");
    }
    assertTrue(System.nanoTime() - t0 < 2_000_000_000L, "no poll waited for the read");
    assertEquals(List.of(), session.confirmed, "nothing confirmed while the read hangs");
    hang.countDown();
    io.pg2lite.testkit.support.Await.until("the confirmation after the read returned", java.time.Duration.ofSeconds(10),
        () -> {
          try {
            h.poll();
          } catch (InterruptedException e) {
            throw new IllegalStateException(e);
          }
          return session.confirmed.equals(List.of(250L));
        });
    h.close();
  }

  @Test
  void closeClosesTheSession() throws Exception {
    stream.start();
    stream.close();
    assertTrue(sessions.get(0).closed);
    assertEquals(List.of(), stream.poll());
    assertSame(1, sessions.size());
  }

  private final class FakeSession implements ReplicationSession {
    final Deque<ReplicationEvent> next = new ArrayDeque<>();
    final List<Long> confirmed = new ArrayList<>();
    SQLException fault;
    boolean abandoned;
    boolean closed;

    @Override
    public void read(List<ReplicationEvent> out, int max) throws SQLException {
      if (fault != null) {
        throw fault;
      }
      while (!next.isEmpty() && out.size() < max) {
        out.add(next.poll());
      }
    }

    @Override
    public void confirm(long lsn) {
      confirmed.add(lsn);
    }

    @Override
    public void heartbeat() {}

    @Override
    public void abandon() {
      abandoned = true;
    }

    @Override
    public void close() {
      closed = true;
    }
  }
}
