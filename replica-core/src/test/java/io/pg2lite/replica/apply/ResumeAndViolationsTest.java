package io.pg2lite.replica.apply;

import static io.pg2lite.replica.apply.Tables.ITEM;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pg2lite.protocol.message.ChangeLogEntry;
import io.pg2lite.protocol.message.Commit;
import io.pg2lite.protocol.testing.ChangeMessages;
import io.pg2lite.protocol.value.Row;
import io.pg2lite.protocol.value.Value;
import io.pg2lite.protocol.watermark.Watermark;
import io.pg2lite.replica.file.ReplicaState;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Commit, resume and skip rules; every protocol violation fails naming offset, watermark and reason. */
class ResumeAndViolationsTest {
  @TempDir
  Path dir;

  private static List<ChangeLogEntry> twoTransactions() {
    return ChangeMessages.after("0/100").begin(1).change(Tables.createItem())
        .insert(ITEM, Row.of("id", Value.of(1))).commit("0/200")
        .begin(2).insert(ITEM, Row.of("id", Value.of(2))).commit("0/300").entries();
  }

  @Test
  void theStateIsStoredWithTheDataAndSurvivesReopening() throws Exception {
    try (ReplicaHarness h = new ReplicaHarness(dir)) {
      h.feed(twoTransactions());
      ReplicaState s = h.applier.committed();
      assertEquals(Watermark.fromLsn("0/300").toString(), s.watermark());
      assertEquals(6, s.offset(), "offset of the second commit record");
      assertEquals(ReplicaHarness.VERSION, s.replicaVersion());
      h.reopen();
      assertEquals(s, h.applier.committed());
      assertEquals(List.of(List.of(ReplicaHarness.VERSION, s.watermark(), "log", 0, 6)),
          h.query("SELECT replica_version, watermark, topic, partition, kafka_offset FROM \"_pg2lite.state\""));
    }
  }

  @Test
  void replayingTheSameRecordsChangesNothing() throws Exception {
    try (ReplicaHarness h = new ReplicaHarness(dir)) {
      h.feed(twoTransactions());
      List<List<Object>> before = h.query("SELECT id, _0_version FROM item ORDER BY id");
      ReplicaState state = h.applier.committed();
      h.nextOffset = 0;
      h.feed(twoTransactions().subList(4, 7)); // the second transaction again
      assertEquals(before, h.query("SELECT id, _0_version FROM item ORDER BY id"));
      assertEquals(state, h.applier.committed(), "a skipped transaction does not move the state");
    }
  }

  @Test
  void aRollbackDiscardsOnlyItsTransaction() throws Exception {
    try (ReplicaHarness h = new ReplicaHarness(dir)) {
      List<ChangeLogEntry> log = new ArrayList<>(ChangeMessages.after("0/100").begin(1).change(Tables.createItem())
          .insert(ITEM, Row.of("id", Value.of(1))).commit("0/200")
          .begin(2).insert(ITEM, Row.of("id", Value.of(2))).rollback("restart")
          .begin(2).insert(ITEM, Row.of("id", Value.of(3))).commit("0/300").entries());
      h.feed(log);
      assertEquals(List.of(List.of(1), List.of(3)), h.query("SELECT id FROM item ORDER BY id"));
    }
  }

  @Test
  void violationsFailWithOffsetWatermarkAndReasonAndLoseNothingCommitted() throws Exception {
    try (ReplicaHarness h = new ReplicaHarness(dir)) {
      h.feed(twoTransactions());
      ReplicaState committed = h.applier.committed();
      List<ChangeLogEntry> next = ChangeMessages.after("0/300").begin(3).insert(ITEM, Row.of("id", Value.of(9)))
          .commit("0/400").entries();

      ApplyException e = assertThrows(ApplyException.class, () -> h.feed(List.of(next.get(1))));
      assertTrue(e.getMessage().contains("insert outside a transaction"), e.getMessage());
      assertTrue(e.getMessage().contains("log-0@7"), e.getMessage());
      assertTrue(e.getMessage().contains(next.get(1).watermark().toString()), e.getMessage());

      e = assertThrows(ApplyException.class, () -> h.feed(List.of(next.get(0), next.get(1), next.get(0))));
      assertTrue(e.getMessage().contains("begin inside the open transaction"), e.getMessage());

      ChangeLogEntry lying = new ChangeLogEntry(next.get(2).watermark(), 2, new Commit(5, null));
      e = assertThrows(ApplyException.class, () -> h.feed(List.of(next.get(0), next.get(1), lying)));
      assertTrue(e.getMessage().contains("commit counts 5 changes but 1 arrived"), e.getMessage());

      ChangeLogEntry early = new ChangeLogEntry(Watermark.fromLsn("0/100"), 2, new Commit(1, null));
      e = assertThrows(ApplyException.class, () -> h.feed(List.of(next.get(0), next.get(1), early)));
      assertTrue(e.getMessage().contains("below its pre-commit watermark"), e.getMessage());

      e = assertThrows(ApplyException.class, () -> {
        h.applier.apply(next.get(0), "someOtherVersion", "log", 0, 99);
      });
      assertTrue(e.getMessage().contains("replica version someOtherVersion"), e.getMessage());

      assertEquals(committed, h.applier.committed());
      assertEquals(List.of(List.of(1), List.of(2)), h.query("SELECT id FROM item ORDER BY id"), "nothing lost");
      h.feed(next);
      assertEquals(3, h.query("SELECT id FROM item").size(), "the replica goes on after the bad input is gone");
    }
  }

  @Test
  void aChangeTheReplicaRejectsNamesTheTable() throws Exception {
    try (ReplicaHarness h = new ReplicaHarness(dir)) {
      h.feed(twoTransactions());
      List<ChangeLogEntry> bad = ChangeMessages.after("0/300").begin(3)
          .insert(ITEM, Row.of("id", Value.of(3), "no_such_column", Value.of(1))).commit("0/400").entries();
      ApplyException e = assertThrows(ApplyException.class, () -> h.feed(bad));
      assertTrue(e.getMessage().contains("no column \"no_such_column\""), e.getMessage());
    }
  }
}
