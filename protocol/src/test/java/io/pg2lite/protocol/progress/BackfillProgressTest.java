package io.pg2lite.protocol.progress;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pg2lite.protocol.message.DataChange;
import io.pg2lite.protocol.message.SchemaChange;
import io.pg2lite.protocol.schema.BackfillStatus;
import io.pg2lite.protocol.schema.QualifiedName;
import io.pg2lite.protocol.schema.Relation;
import io.pg2lite.protocol.schema.RowKey;
import io.pg2lite.protocol.value.Value;
import io.pg2lite.protocol.watermark.Watermark;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Copy progress from the messages' statuses, on a fake clock. */
class BackfillProgressTest {
  static final Relation BIG = new Relation("public", "big", RowKey.of("id"));
  long now;
  final BackfillProgress progress = new BackfillProgress(() -> now);

  static DataChange.Backfill rows(int count, long doneAfter, long total) {
    List<List<Value>> values = new ArrayList<>();
    for (int i = 0; i < count; i++) {
      values.add(List.of(Value.of(i)));
    }
    return new DataChange.Backfill(BIG, List.of(), Watermark.parse("0a"), values, new BackfillStatus(doneAfter, total,
        null));
  }

  @Test
  void ratesAndEtaFromTheFirstMessageSeen() {
    progress.observe(rows(1000, 1000, 10_000));
    now = 1_000_000_000L;
    progress.observe(rows(1000, 2000, 10_000));
    BackfillProgress.Table t = progress.tables().get(0);
    assertEquals(new QualifiedName("public", "big"), t.table());
    assertEquals(2000, t.rows());
    assertEquals(2000.0, t.rowsPerSecond(), 1e-9, "2,000 rows (the first message's too) in one second");
    assertEquals(4, t.etaSeconds(), "8,000 rows left at 2,000 rows/s");
    assertEquals(8000, progress.rowsRemaining());
    assertTrue(progress.describe().contains("public.big 2,000/10,000 rows (20%)"), progress.describe());
  }

  @Test
  void aCompletedOrDroppedCopyLeavesAndARestartedOneStartsOver() {
    progress.observe(rows(10, 10, 20));
    progress.observe(new SchemaChange.BackfillCompleted(BIG, List.of(), Watermark.parse("0a"),
        new BackfillStatus(20, 20, null)));
    assertEquals(List.of(), progress.tables());
    assertEquals("", progress.describe());
    progress.observe(rows(10, 10, 20));
    progress.observe(new SchemaChange.DropTable(new QualifiedName("public", "big")));
    assertEquals(0, progress.rowsRemaining());
    progress.observe(rows(10, 15, 20));
    now = 1_000_000_000L;
    progress.observe(rows(10, 5, 30)); // a retry from a new snapshot
    assertEquals(5, progress.tables().get(0).rows());
    assertEquals(-1, progress.tables().get(0).etaSeconds(), "no time passed since it started again");
  }
}
