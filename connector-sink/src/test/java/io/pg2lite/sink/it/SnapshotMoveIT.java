package io.pg2lite.sink.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pg2lite.testkit.ConnectorConfigs;
import io.pg2lite.testkit.TestStack;
import io.pg2lite.testkit.TestStackExtension;
import io.pg2lite.testkit.connect.WorkerProcess;
import io.pg2lite.testkit.postgres.TestDatabase;
import io.pg2lite.testkit.support.Await;
import io.pg2lite.testkit.workload.Ledger;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import org.apache.kafka.clients.admin.RecordsToDelete;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * A sink task moves to another worker and starts from a snapshot. Two distributed workers of one
 * Connect cluster, each with its own replica directory ({@code ${env:PG2LITE_REPLICA_DIR}}) and
 * one shared snapshot directory. Once a snapshot exists, retention is made to delete the log up to
 * it, so a replay from offset 0 is impossible. Then the worker running the sink task stops. The
 * task moves to the other worker, finds no replica file there, restores the snapshot, catches up
 * by offset, and its replica equals Postgres with nothing lost and nothing applied twice.
 */
@ExtendWith(TestStackExtension.class)
class SnapshotMoveIT {
  private static final Duration WAIT = Duration.ofSeconds(180);

  @Test
  void aSinkTaskMovedToAWorkerWithoutItsReplicaRestoresASnapshotAndCatchesUp(TestStack stack) throws Exception {
    String name = "snap_move";
    Path work = Files.createTempDirectory("pg2lite-" + name);
    Path[] replicaDirs = {Files.createDirectories(work.resolve("w1")), Files.createDirectories(work.resolve("w2"))};
    Path snapshots = Files.createDirectories(work.resolve("snapshots"));
    String topic = stack.kafka().uniqueTopicName(name);
    String bootstrap = stack.kafka().bootstrapServers();
    WorkerProcess[] workers = new WorkerProcess[2];
    try (TestDatabase db = stack.postgres().newDatabase(name)) {
      workers[0] = WorkerProcess.start(bootstrap, "512m", work, true, null, Map.of("PG2LITE_REPLICA_DIR",
          replicaDirs[0].toString()));
      workers[1] = WorkerProcess.start(bootstrap, "512m", work, true, workers[0].groupId(), Map.of(
          "PG2LITE_REPLICA_DIR", replicaDirs[1].toString()));
      db.execute(Ledger.CREATE, "CREATE PUBLICATION " + name + "_pub FOR TABLE acct");
      Ledger ledger = new Ledger(db, 15);
      var rest = workers[0].rest();
      rest.putConnector(name + "-source", ConnectorConfigs.source(stack, name + "-source", db.name(), name, topic));
      rest.awaitRunning(name + "-source", WAIT);
      Map<String, String> sink = ConnectorConfigs.sink(stack, name + "-sink", topic, Path.of("x"));
      sink.put("replica.path", "${env:PG2LITE_REPLICA_DIR}/replica.db");
      sink.put("snapshot.dir", snapshots.toString());
      sink.put("snapshot.interval.ms", "2000");
      rest.putConnector(name + "-sink", sink);
      rest.awaitRunning(name + "-sink", WAIT);

      ledger.write(200, null);
      int from = Await.value("the sink's replica on one of the workers", WAIT,
          () -> Files.exists(replicaDirs[0].resolve("replica.db")) ? 0
              : Files.exists(replicaDirs[1].resolve("replica.db")) ? 1 : null);
      int to = 1 - from;
      Pipeline.awaitSame(db, replicaDirs[from].resolve("replica.db"), Ledger.PG_ROWS, Ledger.LITE_ROWS, WAIT);
      long covered = Await.value("a snapshot of the caught-up replica", WAIT, () -> newestSnapshotOffset(snapshots,
          topic, Long.parseLong(Pipeline.replicaOffset(replicaDirs[from].resolve("replica.db")))));
      // Retention: the log before the snapshot is gone, so only a restore can rebuild a replica.
      TopicPartition tp = new TopicPartition(topic, 0);
      stack.kafka().admin().deleteRecords(Map.of(tp, RecordsToDelete.beforeOffset(covered + 1))).all().get();
      ledger.write(100, null);

      workers[from].close();
      Await.until("the sink task running on the other worker", WAIT,
          () -> workers[to].rest().status(name + "-sink").isRunning()
              && Files.exists(replicaDirs[to].resolve("replica.db")));
      ledger.write(100, null);
      Path moved = replicaDirs[to].resolve("replica.db");
      Pipeline.awaitSame(db, moved, Ledger.PG_ROWS, Ledger.LITE_ROWS, WAIT);
      Ledger.Audit audit = ledger.audit(moved);
      assertEquals(0, audit.lost(), audit.toString());
      assertEquals(0, audit.twice(), audit.toString());
      String log = workers[to].log();
      // The old task may publish a newer snapshot while its worker stops: any at or past `covered` will do.
      java.util.regex.Matcher restored = java.util.regex.Pattern.compile("restored from snapshot \\S+ of .* \\(offset "
          + "(\\d+),").matcher(log);
      assertTrue(restored.find() && Long.parseLong(restored.group(1)) >= covered,
          "the task restored a snapshot at offset " + covered + " or later rather than replaying: "
              + log.lines().filter(l -> l.contains("napshot")).toList());
      assertTrue(workers[to].rest().status(name + "-sink").isRunning());
      workers[to].rest().delete(name + "-sink");
      workers[to].rest().delete(name + "-source");
      Await.until("slot released", WAIT, () -> {
        try {
          return db.queryColumn("SELECT active::text FROM pg_replication_slots WHERE slot_name = '" + name + "_slot'")
              .stream().noneMatch("true"::equals);
        } catch (java.sql.SQLException e) {
          throw new IllegalStateException(e);
        }
      });
    } finally {
      for (WorkerProcess w : workers) {
        if (w != null) {
          w.close();
        }
      }
    }
  }

  /** The offset of the newest published snapshot once it is at least {@code atLeast}, else null. */
  static Long newestSnapshotOffset(Path store, String topic, long atLeast) {
    try (var files = Files.list(store.resolve(topic + "-0"))) {
      long newest = files.map(f -> f.getFileName().toString()).filter(n -> n.endsWith(".json"))
          .mapToLong(n -> Long.parseLong(n.substring(0, 20))).max().orElse(-1);
      return newest >= atLeast ? newest : null;
    } catch (java.io.IOException e) {
      return null;
    }
  }
}
