package io.pg2lite.source.kafka;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pg2lite.protocol.message.Begin;
import io.pg2lite.protocol.message.ChangeLogEntry;
import io.pg2lite.protocol.message.Commit;
import io.pg2lite.protocol.message.Rollback;
import io.pg2lite.protocol.watermark.Watermark;
import org.junit.jupiter.api.Test;

/**
 * Which restart holds backfill transactions back. Found by ChangeLogRules in SourceFailuresIT:
 * after a restart inside a cut transaction with pre-commit watermark B, backfill transactions B.k
 * were written above the repeat's begin B, so consumers would have skipped the repeat.
 */
class LogTailTest {
  private static final Watermark B = Watermark.fromLsn("0/2001");

  @Test
  void aCommittedTailHoldsNothingBack() {
    Watermark c = Watermark.fromLsn("0/3000");
    assertNull(new LogTail(new ChangeLogEntry(c, 4, new Commit(3, null)), null, null, 0).cutLiveTransaction());
  }

  @Test
  void aCutLiveTransactionIsNamedByItsBegin() {
    LogTail open = new LogTail(new ChangeLogEntry(B, 0, new Begin(7L, null, false)), null, null, 0);
    assertTrue(open.insideTransaction());
    assertEquals(B, open.cutLiveTransaction());
    LogTail rolledBack = new LogTail(new ChangeLogEntry(B, 2, new Rollback("x")), null, null, 0);
    assertFalse(rolledBack.insideTransaction());
    assertEquals(B, rolledBack.cutLiveTransaction(), "a rollback also leaves its transaction to be written again");
  }

  @Test
  void aCutBackfillTransactionHoldsNothingBack() {
    Watermark m = Watermark.fromLsn("0/2000").nextMinor();
    assertNull(new LogTail(new ChangeLogEntry(m, 0, new Begin(null, null, true)), null, null, 0).cutLiveTransaction(),
        "a backfill is never written again as is; the next one takes the next minor");
  }

  @Test
  void theNextRecordContinuesTheTailsNumberOrStartsPastItsOffset() {
    ChangeLogEntry commit = new ChangeLogEntry(Watermark.fromLsn("0/3000"), 2, new Commit(1, null));
    assertEquals(42, new LogTail(commit, null, 41L, 97).nextSeq(), "numbers have no holes: offsets do");
    assertEquals(98, new LogTail(commit, null, null, 97).nextSeq(),
        "after a record without a number, the next is past every earlier record's");
  }
}
