package io.pg2lite.backfill.schedule;

import static org.junit.jupiter.api.Assertions.assertEquals;

import org.junit.jupiter.api.Test;

/** The multiplexer's timing rules, on a fake clock. */
class BackfillSchedulerTest {
  final BackfillScheduler scheduler = new BackfillScheduler(8);

  @Test
  void idleMainStreamGivesAFullTransaction() {
    assertEquals(8, scheduler.batchesAllowed(MainStreamState.IDLE, true, 0));
  }

  @Test
  void nothingToDoIsNeverScheduled() {
    assertEquals(0, scheduler.batchesAllowed(MainStreamState.IDLE, false, 0));
  }

  @Test
  void neverInsideAMainTransactionHoweverLongItWaited() {
    assertEquals(0, scheduler.batchesAllowed(MainStreamState.IN_TRANSACTION, true, 0));
    assertEquals(0, scheduler.batchesAllowed(MainStreamState.IN_TRANSACTION, true, 10_000));
    assertEquals(1, scheduler.batchesAllowed(MainStreamState.BUSY, true, 10_001), "at the boundary, one batch");
  }

  @Test
  void busyMainStreamYieldsOneBatchOnceTheBackfillWaitedASecond() {
    assertEquals(0, scheduler.batchesAllowed(MainStreamState.BUSY, true, 0));
    assertEquals(0, scheduler.batchesAllowed(MainStreamState.BUSY, true, 999));
    assertEquals(1, scheduler.batchesAllowed(MainStreamState.BUSY, true, 1_000));
    assertEquals(0, scheduler.batchesAllowed(MainStreamState.BUSY, true, 1_001), "then waits again");
    assertEquals(0, scheduler.batchesAllowed(MainStreamState.BUSY, true, 1_999));
    assertEquals(1, scheduler.batchesAllowed(MainStreamState.BUSY, true, 2_000));
  }

  @Test
  void idleResetsTheWait() {
    scheduler.batchesAllowed(MainStreamState.BUSY, true, 0);
    assertEquals(8, scheduler.batchesAllowed(MainStreamState.IDLE, true, 500));
    assertEquals(0, scheduler.batchesAllowed(MainStreamState.BUSY, true, 1_200), "waits from its last turn");
    assertEquals(1, scheduler.batchesAllowed(MainStreamState.BUSY, true, 2_200));
  }

  @Test
  void thePollThatWroteALiveTransactionWritesNoBackfill() {
    scheduler.mainTransactionWritten(100);
    assertEquals(0, scheduler.batchesAllowed(MainStreamState.IDLE, true, 100), "that poll commits the live one first");
    assertEquals(8, scheduler.batchesAllowed(MainStreamState.IDLE, true, 105), "the next poll copies");
  }

  @Test
  void liveTransactionsInEveryPollStillLetEveryOtherPollCopy() {
    for (long t = 0; t < 100; t += 10) {
      scheduler.mainTransactionWritten(t);
      assertEquals(t % 20 == 0 ? 0 : 8, scheduler.batchesAllowed(MainStreamState.IDLE, true, t), "at " + t);
    }
  }

  @Test
  void whileLiveTransactionsFlowACopyReadsForTheLiveBudgetOnly() {
    BackfillScheduler s = new BackfillScheduler(20, 15);
    assertEquals(Long.MAX_VALUE, s.readDeadline(0), "nothing live yet: no time bound");
    s.mainTransactionWritten(1_000);
    assertEquals(1_020 + 15, s.readDeadline(1_020));
    assertEquals(1_999 + 15, s.readDeadline(1_999), "within a second of the last live transaction");
    assertEquals(Long.MAX_VALUE, s.readDeadline(2_000), "idle again: the full transaction");
  }
}
