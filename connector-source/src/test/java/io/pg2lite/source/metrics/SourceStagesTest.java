package io.pg2lite.source.metrics;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.pg2lite.connect.metrics.StageTimes;
import io.pg2lite.protocol.message.Begin;
import io.pg2lite.protocol.message.ChangeLogEntry;
import io.pg2lite.protocol.message.Commit;
import io.pg2lite.protocol.watermark.Watermark;
import io.pg2lite.source.transaction.Emitted;
import java.time.Instant;
import java.util.List;
import org.apache.kafka.connect.source.SourceRecord;
import org.junit.jupiter.api.Test;

class SourceStagesTest {
  private static final Instant COMMITTED = Instant.parse("2026-12-04T10:00:00.000Z");

  private static Emitted commit(Instant commitTime) {
    return new Emitted(new ChangeLogEntry(Watermark.of(10), 2, new Commit(1, commitTime)), null, true, null);
  }

  private static SourceRecord record() {
    return new SourceRecord(null, null, "t", 0, null, new byte[0]);
  }

  @Test
  void aLiveCommitIsTimedFromPostgresToKafka() {
    StageTimes times = SourceStages.create();
    SourceStages s = new SourceStages(times);
    Emitted begin = new Emitted(new ChangeLogEntry(Watermark.of(9), 0, new Begin(7L, COMMITTED, false)), null, false,
        null);
    Emitted commit = commit(COMMITTED);
    SourceRecord r = record();
    s.read(List.of(begin, commit), COMMITTED.plusMillis(2), 1_000_000);
    s.handed(commit, r, 1_500_000);
    s.acknowledged(r, 4_500_000);
    assertEquals(2.0, times.percentileMillis(SourceStages.READ, 50), "Postgres commit → read");
    assertEquals(0.5, times.percentileMillis(SourceStages.HANDED, 50), "read → poll");
    assertEquals(3.0, times.percentileMillis(SourceStages.ACKNOWLEDGED, 50), "poll → acknowledged");
    assertEquals(5.5, times.totalMillis(50));
  }

  @Test
  void backfillCommitsAndDroppedMarksAreNotCounted() {
    StageTimes times = SourceStages.create();
    SourceStages s = new SourceStages(times);
    Emitted backfill = commit(null);
    Emitted live = commit(COMMITTED);
    SourceRecord r1 = record();
    SourceRecord r2 = record();
    s.read(List.of(backfill, live), COMMITTED.plusMillis(1), 0);
    s.handed(backfill, r1, 10);
    s.acknowledged(r1, 20);
    assertEquals(-1, times.totalMillis(50), "a backfill transaction has no Postgres commit time");
    s.reset(); // the task closed its streams: the queued live commit is dropped
    s.handed(live, r2, 30);
    s.acknowledged(r2, 40);
    assertEquals(-1, times.totalMillis(50), "a mark dropped by a reset is never counted");
  }

  /**
   * The multiplexer hands on each read entry in a new {@link Emitted} (its position stamped with
   * the backfill state): the mark is the entry's, so it is found, and none is left behind.
   */
  @Test
  void aCommitRestampedByTheMultiplexerIsStillTimed() {
    StageTimes times = SourceStages.create();
    SourceStages s = new SourceStages(times);
    Emitted read = commit(COMMITTED);
    Emitted stamped = new Emitted(read.entry(), null, true, null);
    SourceRecord r = record();
    s.read(List.of(read), COMMITTED.plusMillis(1), 0);
    s.handed(stamped, r, 1_000_000);
    s.acknowledged(r, 2_000_000);
    assertEquals(3.0, times.totalMillis(50), "commit → read 1 ms, → handed 1 ms, → acknowledged 1 ms");
    assertEquals(0, s.pendingMarks(), "no mark left behind");
  }
}
