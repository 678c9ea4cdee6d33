package io.pg2lite.sink.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pg2lite.testkit.TestStack;
import io.pg2lite.testkit.TestStackExtension;
import io.pg2lite.testkit.connect.ConnectorStatus;
import io.pg2lite.testkit.support.Await;
import io.pg2lite.testkit.workload.Ledger;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import javax.management.ObjectName;
import org.apache.kafka.clients.admin.RecordsToDelete;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Retention deleted the first part of the change log. A new sink connector builds its replica
 * from a snapshot and equals Postgres. The two newest snapshots are damaged (one truncated, one
 * with a byte changed), so the restore must skip both. A sink with no usable snapshot fails
 * clearly, "replica too far behind".
 */
@ExtendWith(TestStackExtension.class)
class SnapshotRetentionIT {
  @Test
  void aNewSinkStartsFromTheNewestSoundSnapshotAfterRetentionDeletedTheLogsStart(TestStack stack) throws Exception {
    try (Pipeline p = new Pipeline(stack, "snap_ret")) {
      p.db.execute(Ledger.CREATE, "CREATE PUBLICATION snap_ret_pub FOR TABLE acct");
      Ledger ledger = new Ledger(p.db, 21);
      p.startSource();
      Path store = Files.createTempDirectory("pg2lite-snap-ret");
      Path first = p.files.newFile("a");
      String a = p.startSink("a", first, Map.of("snapshot.dir", store.toString(), "snapshot.interval.ms", "1000",
          "snapshot.keep", "10"));
      List<Long> snapshots = new ArrayList<>();
      for (int rows : new int[] {100, 25, 25}) {
        ledger.write(rows, null);
        p.awaitSame(first, Ledger.PG_ROWS, Ledger.LITE_ROWS, Pipeline.WAIT);
        long applied = Long.parseLong(Pipeline.replicaOffset(first));
        snapshots.add(Await.value("a snapshot at offset " + applied, Pipeline.WAIT,
            () -> SnapshotMoveIT.newestSnapshotOffset(store, p.topic, applied)));
      }
      p.worker.rest().delete(a);
      TopicPartition tp = new TopicPartition(p.topic, 0);
      long cut = snapshots.get(0) + 1;
      long end = stack.kafka().admin().listOffsets(Map.of(tp, org.apache.kafka.clients.admin.OffsetSpec.latest()))
          .all().get().get(tp).offset();
      assertTrue(cut > end / 2, "the first half of the log goes: cut " + cut + " of " + end);
      stack.kafka().admin().deleteRecords(Map.of(tp, RecordsToDelete.beforeOffset(cut))).all().get();
      ledger.write(30, null);

      // Damage the two newest snapshots: a truncated data file, and one byte changed.
      Path dir = store.resolve(p.topic + "-0");
      Path newest = dataFileAt(dir, snapshots.get(2));
      Files.write(newest, java.util.Arrays.copyOf(Files.readAllBytes(newest), (int) Files.size(newest) / 2));
      Path second = dataFileAt(dir, snapshots.get(1));
      byte[] bytes = Files.readAllBytes(second);
      bytes[bytes.length / 2] ^= 0x5a;
      Files.write(second, bytes);

      Path rebuilt = p.files.newFile("b");
      String b = p.startSink("b", rebuilt, Map.of("snapshot.dir", store.toString()));
      p.awaitSame(rebuilt, Ledger.PG_ROWS, Ledger.LITE_ROWS, Pipeline.WAIT);
      Ledger.Audit audit = ledger.audit(rebuilt);
      assertEquals(0, audit.lost(), audit.toString());
      assertEquals(0, audit.twice(), audit.toString());
      ObjectName mbean = new ObjectName("io.pg2lite:type=sink,connector=" + ObjectName.quote(b));
      assertEquals(snapshots.get(0), ManagementFactory.getPlatformMBeanServer().getAttribute(mbean,
          "RestoredSnapshotOffset"), "the newest sound snapshot was restored, the two damaged ones skipped");
      assertEquals(snapshots.get(0), ManagementFactory.getPlatformMBeanServer().getAttribute(mbean,
          "OldestRestorableOffset"), "the oldest snapshot the topic still covers, for the retention rule");

      Path empty = Files.createTempDirectory("pg2lite-snap-none");
      String c = p.name + "-sink-c";
      p.worker.rest().putConnector(c, p.sinkConfig(c, p.files.newFile("c"), Map.of("snapshot.dir", empty.toString())));
      ConnectorStatus failed = p.worker.rest().awaitFailed(c, Pipeline.WAIT);
      assertTrue(failed.failure().contains("replica too far behind, resync"), failed.failure());
      p.worker.rest().delete(c);
    }
  }

  private static Path dataFileAt(Path dir, long offset) throws java.io.IOException {
    try (var files = Files.list(dir)) {
      return files.filter(f -> f.getFileName().toString().startsWith(String.format("%020d-", offset))
          && f.toString().endsWith(".db")).findFirst().orElseThrow();
    }
  }
}
