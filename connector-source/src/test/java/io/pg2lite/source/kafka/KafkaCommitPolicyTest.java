package io.pg2lite.source.kafka;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

class KafkaCommitPolicyTest {
  private final AtomicLong clock = new AtomicLong(1_000_000_000L);
  private final KafkaCommitPolicy policy = new KafkaCommitPolicy(250, 4096, 1000, 1_000_000, clock::get);

  @Test
  void aCaughtUpSourceCommitsEveryBatch() {
    assertTrue(policy.shouldCommit(12));
    assertTrue(policy.shouldCommit(1));
  }

  @Test
  void aSourceThatIsBehindCommitsOnlyWhenTheIntervalHasPassed() {
    assertFalse(policy.shouldCommit(4096));
    clock.addAndGet(100_000_000L);
    assertFalse(policy.shouldCommit(4096));
    clock.addAndGet(150_000_000L);
    assertTrue(policy.shouldCommit(4096), "250 ms since the last commit");
    assertFalse(policy.shouldCommit(4096), "the interval restarts at each commit");
    assertTrue(policy.shouldCommit(4095), "a partial batch means caught up: commit now");
  }

  @Test
  void anOpenKafkaTransactionSplitsAtTheRecordBound() {
    policy.written(999, 10);
    assertFalse(policy.shouldSplit());
    policy.written(1, 10);
    assertTrue(policy.shouldSplit(), "1000 records");
    assertFalse(policy.shouldSplit(), "the count restarts at each commit");
  }

  @Test
  void anOpenKafkaTransactionSplitsAtTheByteBound() {
    policy.written(1, 999_999);
    assertFalse(policy.shouldSplit());
    policy.written(1, 1);
    assertTrue(policy.shouldSplit(), "1,000,000 bytes");
  }

  @Test
  void aFullKafkaTransactionCommitsAtATransactionEndEvenWhileCatchingUp() {
    policy.written(1000, 0);
    assertTrue(policy.shouldCommit(4096), "behind, but holding the bound: commit");
    assertFalse(policy.shouldCommit(4096), "counts and interval restart");
  }

  @Test
  void aCommitAtATransactionEndResetsTheSplitCount() {
    policy.written(999, 0);
    assertTrue(policy.shouldCommit(1));
    policy.written(1, 0);
    assertFalse(policy.shouldSplit());
  }
}
