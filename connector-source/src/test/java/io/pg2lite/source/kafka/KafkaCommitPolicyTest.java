package io.pg2lite.source.kafka;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

class KafkaCommitPolicyTest {
  private final AtomicLong clock = new AtomicLong(1_000_000_000L);
  private final KafkaCommitPolicy policy = new KafkaCommitPolicy(250, 4096, clock::get);

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
}
