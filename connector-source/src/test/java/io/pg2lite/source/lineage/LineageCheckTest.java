package io.pg2lite.source.lineage;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pg2lite.protocol.message.ChangeLogEntry;
import io.pg2lite.protocol.message.Commit;
import io.pg2lite.protocol.watermark.Lsn;
import io.pg2lite.protocol.watermark.Watermark;
import io.pg2lite.source.kafka.LogTail;
import io.pg2lite.source.lineage.LineageCheck.Decision;
import io.pg2lite.source.postgres.PostgresCatalog.SlotState;
import io.pg2lite.source.transaction.SourcePosition;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class LineageCheckTest {
  private static final Lsn CONSISTENT = Lsn.parse("0/1000");
  private static final Watermark V = Watermark.fromLsn(CONSISTENT);
  private static final Lsn STORED = Lsn.parse("0/5000");
  private static final SourcePosition POSITION = new SourcePosition(V, Watermark.fromLsn(STORED), null);
  private final LineageCheck manual = new LineageCheck("s", "log", false);
  private final LineageCheck auto = new LineageCheck("s", "log", true);

  private static SlotState slot(String confirmed, String walStatus, String reason) {
    return new SlotState("pgoutput", "db", Lsn.parse(confirmed), false, walStatus, reason, "16MB", 0);
  }

  private static Optional<LogTail> tail(Watermark version, String commitLsn, long seq) {
    return Optional.of(new LogTail(new ChangeLogEntry(Watermark.fromLsn(commitLsn), 1, new Commit(0, null)), version,
        seq, seq));
  }

  @Test
  void aHealthySlotAndItsOwnLogContinue() {
    assertInstanceOf(Decision.Continue.class, manual.decide(POSITION, slot("0/4000", "reserved", null), STORED,
        tail(V, "0/5000", 9), -1));
    // Nothing confirmed yet (the first offsets stored, the slot not yet told): still the same lineage.
    assertInstanceOf(Decision.Continue.class, manual.decide(POSITION, slot("0/1000", "reserved", null), STORED,
        tail(V, "0/5000", 9), -1));
    // Every record deleted by retention: the topic is not new, the log goes on.
    assertInstanceOf(Decision.Continue.class, manual.decide(POSITION, slot("0/4000", "extended", null), STORED,
        Optional.empty(), 120));
  }

  @Test
  void anInvalidatedSlotIsNamedWithItsReasonAndSetting() {
    LineageLost lost = assertThrows(LineageLost.class, () -> manual.decide(POSITION, slot("0/4000", "lost", null),
        STORED, tail(V, "0/5000", 9), -1));
    assertTrue(lost.getMessage().contains("replication slot s was invalidated by Postgres (wal_removed")
        && lost.getMessage().contains("max_slot_wal_keep_size = 16MB") && lost.getMessage().contains("resync.auto"),
        lost.getMessage());
    LineageLost idle = assertThrows(LineageLost.class, () -> manual.decide(POSITION,
        slot("0/4000", "lost", "idle_timeout"), STORED, tail(V, "0/5000", 9), -1));
    assertTrue(idle.getMessage().contains("idle_replication_slot_timeout"), idle.getMessage());
    Decision.NewLineage resync = assertInstanceOf(Decision.NewLineage.class, auto.decide(POSITION,
        slot("0/4000", "lost", null), STORED, tail(V, "0/5000", 9), -1));
    assertEquals(V, resync.previous());
    assertTrue(resync.dropSlot(), "an invalidated slot is dropped before it is created again");
    assertTrue(resync.reason().startsWith("replication slot s was invalidated"), resync.reason());
  }

  @Test
  void aMissingOrRecreatedSlotEndsTheLineage() {
    assertTrue(assertThrows(LineageLost.class, () -> manual.decide(POSITION, null, STORED, tail(V, "0/5000", 9), -1))
        .getMessage().contains("replication slot s is missing"));
    assertTrue(assertThrows(LineageLost.class, () -> manual.decide(POSITION, slot("0/9000", "reserved", null), STORED,
        tail(V, "0/5000", 9), -1)).getMessage().contains("dropped and recreated"));
    Decision.NewLineage missing = assertInstanceOf(Decision.NewLineage.class,
        auto.decide(POSITION, null, STORED, tail(V, "0/5000", 9), -1));
    assertEquals(false, missing.dropSlot());
  }

  @Test
  void aTopicDeletedAndCreatedAgainEndsTheLineage() {
    LineageLost lost = assertThrows(LineageLost.class, () -> manual.decide(POSITION, slot("0/4000", "reserved", null),
        STORED, Optional.empty(), 0));
    assertTrue(lost.getMessage().contains("topic log holds no record"), lost.getMessage());
    assertTrue(assertThrows(LineageLost.class, () -> manual.decide(POSITION, slot("0/4000", "reserved", null), STORED,
        tail(Watermark.fromLsn("0/7000"), "0/8000", 3), -1)).getMessage().contains("another source"));
    assertInstanceOf(Decision.NewLineage.class, auto.decide(POSITION, slot("0/4000", "reserved", null), STORED,
        Optional.empty(), 0));
  }

  @Test
  void lostOffsetsStartANewLineageOnlyWhenAllowed() {
    LineageLost lost = assertThrows(LineageLost.class, () -> manual.decide(null, slot("0/4000", "reserved", null),
        null, tail(V, "0/5000", 9), -1));
    assertTrue(lost.getMessage().contains("offsets were lost"), lost.getMessage());
    Decision.NewLineage resync = assertInstanceOf(Decision.NewLineage.class, auto.decide(null,
        slot("0/4000", "reserved", null), null, tail(V, "0/5000", 9), -1));
    assertEquals(V, resync.previous(), "the log's lineage is the one replaced");
    // Safe cases stay first starts: an empty topic, or the slot's own lineage with nothing confirmed.
    assertEquals(new Decision.FirstStart(null, false), manual.decide(null, null, null, Optional.empty(), 0));
    assertEquals(new Decision.FirstStart(CONSISTENT, false), manual.decide(null, slot("0/1000", "reserved", null),
        null, tail(V, "0/1000", 2), -1));
    assertEquals(new Decision.FirstStart(null, true), manual.decide(null, slot("0/1000", "lost", null), null,
        Optional.empty(), 0), "an invalidated slot with an empty topic is dropped and created again");
  }

  @Test
  void aNewLineageWhoseOffsetsWereNotStoredYetGoesOn() {
    // Crashed after writing the new lineage's first records, before Connect stored its offsets:
    // old offsets, a fresh slot that confirmed nothing, a log ending in the fresh slot's lineage.
    Lsn fresh = Lsn.parse("0/9000");
    Decision d = auto.decide(POSITION, slot("0/9000", "reserved", null), STORED,
        tail(Watermark.fromLsn(fresh), "0/9000", 12), -1);
    assertEquals(new Decision.FirstStart(fresh, false), d);
  }

  /** A replica stranded on a healthy lineage: with resync.auto a new one starts, dropping the slot. */
  @Test
  void aForcedReasonEndsALineageThatCouldGoOnOnlyWithResyncAuto() {
    String why = "consumer group connect-r is stranded";
    Decision d = auto.decide(POSITION, slot("0/4000", "reserved", null), STORED, tail(V, "0/5000", 9), -1, why);
    Decision.NewLineage n = assertInstanceOf(Decision.NewLineage.class, d);
    assertEquals(V, n.previous());
    assertEquals(why, n.reason());
    assertTrue(n.dropSlot());
    assertInstanceOf(Decision.Continue.class, manual.decide(POSITION, slot("0/4000", "reserved", null), STORED,
        tail(V, "0/5000", 9), -1, why));
  }
}
