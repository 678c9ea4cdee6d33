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
}
