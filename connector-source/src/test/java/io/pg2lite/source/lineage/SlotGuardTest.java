package io.pg2lite.source.lineage;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pg2lite.protocol.watermark.Lsn;
import io.pg2lite.source.postgres.PostgresCatalog.SlotState;
import io.pg2lite.source.replication.ReplicationEvent;
import io.pg2lite.source.replication.ReplicationSession;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.List;
import org.junit.jupiter.api.Test;

class SlotGuardTest {
  private static SlotState slot(long confirmed) {
    return new SlotState("pgoutput", "db", new Lsn(confirmed), false, "reserved", null, "-1", 0);
  }

  /** A session that only records whether it was closed. */
  private static final class Session implements ReplicationSession {
    boolean closed;

    @Override
    public void read(List<ReplicationEvent> out, int max) {}

    @Override
    public void confirm(long lsn) {}

    @Override
    public void heartbeat() {}

    @Override
    public void abandon() {}

    @Override
    public void close() {
      closed = true;
    }
  }

  @Test
  void aSessionOpensWhenTheSlotIsTheSameBeforeAndAfter() throws Exception {
    Deque<SlotState> looks = new ArrayDeque<>(List.of(slot(100), slot(100)));
    Session session = new Session();
    ReplicationSession.Opener guarded = new SlotGuard("s", looks::poll).guarding(after -> session, () -> 50L);
    assertSame(session, guarded.open(100L));
    assertFalse(session.closed);
    assertTrue(looks.isEmpty(), "looked at twice");
  }

  /**
   * The slot was dropped between the first look and the open; Debezium created it anew at the WAL's
   * end. The second look finds a slot that confirmed beyond the resume point: the session is closed
   * and the lineage named lost, instead of streaming from the new slot with a hole.
   */
  @Test
  void aSlotCreatedByTheOpenItselfIsALostLineageNotASilentHole() {
    Deque<SlotState> looks = new ArrayDeque<>(List.of(slot(100), slot(9_000)));
    Session session = new Session();
    ReplicationSession.Opener guarded = new SlotGuard("s", looks::poll).guarding(after -> session, () -> 50L);
    LineageLost lost = assertThrows(LineageLost.class, () -> guarded.open(100L));
    assertTrue(lost.reason().contains("dropped and recreated"), lost.reason());
    assertTrue(session.closed, "the session on the new slot is closed");
  }

  /** Before the lineage's first commit the session starts at the slot's consistent point: that is the floor. */
  @Test
  void withoutACommitTheLineagesConsistentPointIsWhereTheSessionStarts() {
    Deque<SlotState> looks = new ArrayDeque<>(List.of(slot(50), slot(9_000)));
    Session session = new Session();
    ReplicationSession.Opener guarded = new SlotGuard("s", looks::poll).guarding(after -> session, () -> 50L);
    assertThrows(LineageLost.class, () -> guarded.open(null));
    assertTrue(session.closed);
  }

  @Test
  void aMissingSlotIsNamedBeforeAnySessionOpens() {
    Deque<SlotState> looks = new ArrayDeque<>();
    ReplicationSession.Opener guarded = new SlotGuard("s", looks::poll).guarding(after -> {
      throw new AssertionError("no session may open on a missing slot");
    }, () -> 50L);
    LineageLost lost = assertThrows(LineageLost.class, () -> guarded.open(100L));
    assertTrue(lost.reason().contains("replication slot s is missing"), lost.reason());
  }

  /**
   * The slot was there at the first look and dropped while Debezium opened the session: Debezium
   * fails the open in its own words after its retries. Looked at again, that is a lost lineage
   * (FuzzIT seed 4025), with Debezium's failure kept beside it.
   */
  @Test
  void aSlotDroppedDuringTheOpenIsALostLineage() {
    Deque<SlotState> looks = new ArrayDeque<>(List.of(slot(100)));
    RuntimeException debezium = new IllegalStateException("replication slot \"s\" does not exist");
    ReplicationSession.Opener guarded = new SlotGuard("s", looks::poll).guarding(after -> {
      throw debezium;
    }, () -> 50L);
    LineageLost lost = assertThrows(LineageLost.class, () -> guarded.open(100L));
    assertTrue(lost.reason().contains("replication slot s is missing"), lost.reason());
    assertSame(debezium, lost.getSuppressed()[0], "the open's own failure is kept");
  }

  /** An open that fails while the slot is still there is the open's fault: it is rethrown, to be healed. */
  @Test
  void anOpenThatFailsWithTheSlotInPlaceFailsAsItself() {
    Deque<SlotState> looks = new ArrayDeque<>(List.of(slot(100), slot(100)));
    RuntimeException refused = new IllegalStateException("connection refused");
    ReplicationSession.Opener guarded = new SlotGuard("s", looks::poll).guarding(after -> {
      throw refused;
    }, () -> 50L);
    assertSame(refused, assertThrows(IllegalStateException.class, () -> guarded.open(100L)));
    assertTrue(looks.isEmpty(), "looked at again after the failed open");
  }
}
