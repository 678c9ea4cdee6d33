package io.pg2lite.connect.metrics;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.Test;

class StageTimesTest {
  @Test
  void percentilesOverTheKeptTransactions() {
    StageTimes t = new StageTimes("a", "total");
    assertEquals(-1, t.totalMillis(50), "nothing before the first");
    assertEquals("", t.describe());
    for (int ms = 100; ms >= 1; ms--) {
      t.record(1, ms * 1000L);
    }
    assertEquals(50.0, t.totalMillis(50));
    assertEquals(99.0, t.totalMillis(99));
    assertEquals(100.0, t.totalMillis(100));
    assertEquals("total: p50 50.00 ms, p99 99.00 ms (last 100 transactions)", t.describe(), "a stage never recorded is left out");
    t.reset();
    assertEquals(-1, t.totalMillis(50), "nothing after a reset");
    t.record(1, 7000);
    assertEquals(7.0, t.totalMillis(99), "only what came after it");
  }

  @Test
  void onlyTheLastWindowCountsAndNegativeTimesAreZero() {
    StageTimes t = new StageTimes("total");
    for (int i = 0; i < StageTimes.WINDOW; i++) {
      t.record(0, 1_000_000); // 1 s each: pushed out below
    }
    for (int i = 0; i < StageTimes.WINDOW; i++) {
      t.record(0, i % 2 == 0 ? -5 : 2000);
    }
    assertEquals(0.0, t.totalMillis(50), "a clock that ran backwards counts as 0, not below");
    assertEquals(2.0, t.totalMillis(99), "the older second-long times are out of the window");
  }

  @Test
  void aReplicaBatchCountsEachLiveTransactionFromItsPostgresCommit() {
    StageTimes t = ReplicaStages.create();
    Instant fetched = Instant.parse("2026-12-04T10:00:00.010Z");
    List<Instant> commits = List.of(Instant.parse("2026-12-04T10:00:00.004Z"),
        Instant.parse("2026-12-04T10:00:00.008Z"));
    ReplicaStages.record(t, fetched, 1_000_000, commits, 4_000_000); // applied in 3 ms
    assertEquals(2.0, t.percentileMillis(ReplicaStages.FETCHED, 50));
    assertEquals(6.0, t.percentileMillis(ReplicaStages.FETCHED, 100));
    assertEquals(3.0, t.percentileMillis(ReplicaStages.APPLIED, 100));
    assertEquals(9.0, t.totalMillis(100), "6 ms to the fetch, 3 to the commit");
    assertTrue(t.describe().startsWith("postgres commit → fetched: p50 2.00 ms"), t.describe());
  }
}
