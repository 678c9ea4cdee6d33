package io.pg2lite.replica.apply;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pg2lite.replica.file.ReplicaState;
import org.junit.jupiter.api.Test;

class LogContinuityTest {
  private final LogContinuity rule = new LogContinuity();

  @Test
  void aNewReplicaStartsAtTheLogsFirstRecord() {
    rule.restart(ReplicaState.EMPTY);
    assertTrue(rule.admit("log", 0, 0, 0L));
    assertTrue(rule.admit("log", 0, 2, 1L), "an offset taken by a transaction marker is no gap");
  }

  @Test
  void aNewReplicaWhoseFirstRecordsAreGoneStops() {
    rule.restart(ReplicaState.EMPTY);
    LogContinuity.LogGapException gap = assertThrows(LogContinuity.LogGapException.class,
        () -> rule.admit("log", 0, 500, 311L));
    assertTrue(gap.getMessage().startsWith("replica too far behind, resync"), gap.getMessage());
    assertTrue(gap.getMessage().contains("the log's first record"), gap.getMessage());
  }

  @Test
  void aReplicaFollowsOnFromItsStoredCommitAndPassesOverWhatItHas() {
    rule.restart(new ReplicaState("v", "0a", "log", 0, 10, 4L));
    assertFalse(rule.admit("log", 0, 9, 3L), "delivered again: already applied");
    assertFalse(rule.admit("log", 0, 10, 4L));
    assertTrue(rule.admit("log", 0, 12, 5L));
    assertTrue(rule.admit("log", 0, 13, 6L));
    assertFalse(rule.admit("log", 0, 13, 6L), "the same record twice is taken once");
  }

  @Test
  void recordsDeletedByRetentionStopTheReplica() {
    rule.restart(new ReplicaState("v", "0a", "log", 0, 10, 4L));
    LogContinuity.LogGapException gap = assertThrows(LogContinuity.LogGapException.class,
        () -> rule.admit("log", 0, 400, 250L));
    assertTrue(gap.getMessage().contains("needs change-log record number 5 (the one after offset 10)"),
        gap.getMessage());
    assertTrue(gap.getMessage().contains("245 records in between are gone"), gap.getMessage());
  }

  @Test
  void aLowerNumberAtALaterOffsetIsASecondWriter() {
    rule.restart(new ReplicaState("v", "0a", "log", 0, 10, 4L));
    LogContinuity.LogGapException e = assertThrows(LogContinuity.LogGapException.class,
        () -> rule.admit("log", 0, 11, 2L));
    assertTrue(e.getMessage().contains("second writer"), e.getMessage());
  }

  @Test
  void recordsWithoutNumbersAreTakenInOffsetOrderAndTheRuleResumesAfterThem() {
    rule.restart(new ReplicaState("v", "0a", "log", 0, 10, null));
    assertTrue(rule.admit("log", 0, 11, null));
    assertTrue(rule.admit("log", 0, 12, 900L), "the first numbered record after unnumbered ones sets the count");
    assertThrows(LogContinuity.LogGapException.class, () -> rule.admit("log", 0, 13, 902L));
  }
}
