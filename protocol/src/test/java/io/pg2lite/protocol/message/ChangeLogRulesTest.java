package io.pg2lite.protocol.message;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pg2lite.protocol.schema.Relation;
import io.pg2lite.protocol.schema.ReplicaIdentity;
import io.pg2lite.protocol.schema.RowKey;
import io.pg2lite.protocol.value.Row;
import io.pg2lite.protocol.value.Value;
import io.pg2lite.protocol.watermark.Lsn;
import io.pg2lite.protocol.watermark.Watermark;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class ChangeLogRulesTest {
  private static final Relation T = new Relation("public", "t", new RowKey(List.of("id"), ReplicaIdentity.DEFAULT));
  private static final Watermark V = Watermark.fromLsn("0/1000");

  /** Builds a log record by record with explicit watermarks, so tests can break any rule. */
  private static final class Log {
    final List<ChangeLogEntry> entries = new ArrayList<>();

    Log firstStart() {
      Watermark w = V.nextMinor();
      entries.add(new ChangeLogEntry(w, 0, new Begin(null, null, false)));
      entries.add(new ChangeLogEntry(w, 1, new Commit(0, null)));
      return this;
    }

    Log live(String begin, String commit, int changes) {
      Watermark b = Watermark.parse(begin);
      entries.add(new ChangeLogEntry(b, 0, new Begin(7L, null, false)));
      for (int i = 1; i <= changes; i++) {
        entries.add(new ChangeLogEntry(b, i, new DataChange.Insert(T, Row.of("id", Value.of(i)))));
      }
      entries.add(new ChangeLogEntry(Watermark.parse(commit), changes + 1, new Commit(changes, null)));
      return this;
    }

    Log backfill(String w) {
      Watermark b = Watermark.parse(w);
      entries.add(new ChangeLogEntry(b, 0, new Begin(null, null, true)));
      entries.add(new ChangeLogEntry(b, 1, new Commit(0, null)));
      return this;
    }

    Log add(ChangeLogEntry e) {
      entries.add(e);
      return this;
    }

    ChangeLogRules check() {
      ChangeLogRules rules = new ChangeLogRules();
      entries.forEach(rules::accept);
      return rules;
    }
  }

  private static String w(long lsn) {
    return Watermark.fromLsn(new Lsn(lsn)).toString();
  }

  @Test
  void aLogWithGapsInThePreCommitWatermarksRepeatsAndBackfillsPasses() {
    ChangeLogRules rules = new Log().firstStart()
        .live(w(0x1001), w(0x1100), 2)
        .backfill(w(0x1100) + ".01")
        .live(w(0x1501), w(0x1600), 1) // P moved to 0x1500 on transactions that wrote nothing
        .live(w(0x1101), w(0x1500), 0) // a repeat after an at-least-once restart
        .live(w(0x1601), w(0x1700), 3)
        .check();
    assertEquals(Watermark.parse(w(0x1700)), rules.lastCommit());
  }

  @Test
  void aRollbackClosesTheTransactionAndItFollowsAgain() {
    Watermark b = Watermark.parse(w(0x1001));
    new Log().firstStart()
        .add(new ChangeLogEntry(b, 0, new Begin(7L, null, false)))
        .add(new ChangeLogEntry(b, 1, new DataChange.Insert(T, Row.of("id", Value.of(1)))))
        .add(new ChangeLogEntry(b, 2, new Rollback("restarted")))
        .live(w(0x1001), w(0x1100), 1).check();
  }

  @Test
  void violationsNameTheRecordAndTheRule() {
    assertTrue(assertThrows(ChangeLogRules.Violation.class, () -> new Log().live(w(0x1001), w(0x1100), 1).check())
        .getMessage().contains("first-start"));
    assertTrue(assertThrows(ChangeLogRules.Violation.class,
        () -> new Log().firstStart().live(w(0x1001), w(0x1100), 1).live(w(0x1101), w(0x1000), 1).check())
        .getMessage().contains("record #7"), "commit below its begin");
    ChangeLogEntry begin = new ChangeLogEntry(Watermark.parse(w(0x1001)), 0, new Begin(7L, null, false));
    assertThrows(ChangeLogRules.Violation.class, () -> new Log().firstStart().add(begin).add(begin).check(),
        "begin inside a transaction");
    assertThrows(ChangeLogRules.Violation.class, () -> new Log().firstStart().add(begin)
        .add(new ChangeLogEntry(Watermark.parse(w(0x1001)), 2, new Commit(1, null))).check(), "pos gap");
    assertThrows(ChangeLogRules.Violation.class, () -> new Log().firstStart().add(begin)
        .add(new ChangeLogEntry(Watermark.parse(w(0x1100)), 1, new Commit(1, null))).check(), "wrong change count");
    assertThrows(ChangeLogRules.Violation.class, () -> new Log().firstStart()
        .add(new ChangeLogEntry(Watermark.parse(w(0x2000)), 1, new Commit(0, null))).check(), "commit outside");
    assertThrows(ChangeLogRules.Violation.class, () -> new Log().firstStart().live(w(0x1001), w(0x1100), 0)
        .backfill(w(0x1000) + ".01").check(), "a backfill below the last commit");
    assertThrows(ChangeLogRules.Violation.class, () -> new Log().firstStart().live(w(0x1001), w(0x1100), 0)
        .live(w(0x1001), w(0x1200), 0).check(), "a repeat that commits above the log");
  }

  @Test
  void aNewLineageBeginsWithItsFirstStartTransactionAboveTheOldOne() {
    NewLineage lost = new NewLineage(V.toString(), "slot lost");
    Watermark v2 = Watermark.fromLsn("0/9000");
    ChangeLogRules rules = new Log().firstStart().live(w(0x1001), w(0x1100), 1)
        .add(new ChangeLogEntry(Watermark.parse(w(0x1101)), 0, new Begin(7L, null, false)))
        .add(new ChangeLogEntry(Watermark.parse(w(0x1101)), 1, new Rollback("slot lost")))
        .add(new ChangeLogEntry(v2.nextMinor(), 0, new Begin(null, null, false, lost)))
        .add(new ChangeLogEntry(v2.nextMinor(), 1, new Commit(0, null)))
        .live(w(0x9001), w(0x9100), 1).check();
    assertEquals(Watermark.parse(w(0x9100)), rules.lastCommit());
    assertTrue(assertThrows(ChangeLogRules.Violation.class, () -> new Log().firstStart()
        .add(new ChangeLogEntry(Watermark.parse(w(0x1001)), 0, new Begin(7L, null, false, lost))).check())
        .getMessage().contains("a new lineage begins with a first-start transaction"), "a live begin marked");
    assertThrows(ChangeLogRules.Violation.class, () -> new Log().firstStart()
        .add(new ChangeLogEntry(v2.nextMinor().nextMinor(), 0, new Begin(null, null, false, lost))).check(),
        "a new lineage at V.02");
  }
}
