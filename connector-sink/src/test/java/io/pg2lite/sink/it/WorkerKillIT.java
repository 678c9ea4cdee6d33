package io.pg2lite.sink.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pg2lite.connect.hold.TestHolds;
import io.pg2lite.testkit.TestStack;
import io.pg2lite.testkit.TestStackExtension;
import io.pg2lite.testkit.connect.ConnectRestClient;
import io.pg2lite.testkit.connect.WorkerProcess;
import io.pg2lite.testkit.kafka.TopicReader;
import io.pg2lite.testkit.postgres.TestDatabase;
import io.pg2lite.testkit.sqlite.SqliteFiles;
import io.pg2lite.testkit.support.Await;
import io.pg2lite.testkit.workload.Ledger;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Fault 4 of issue 11: the worker running both connectors is killed with SIGKILL while the
 * source streams a large transaction and small ones keep coming; a new worker process in the same
 * Connect cluster takes over. The replica ends equal to Postgres with nothing lost and nothing
 * applied twice, with exactly-once and with at-least-once delivery.
 */
@ExtendWith(TestStackExtension.class)
class WorkerKillIT {
  private static final Duration WAIT = Duration.ofSeconds(180);

  @ParameterizedTest(name = "exactly-once {0}")
  @ValueSource(booleans = {true, false})
  void aWorkerKilledInsideATransactionIsTakenOverWithNothingLostOrRepeated(boolean exactlyOnce, TestStack stack)
      throws Exception {
    String name = exactlyOnce ? "kill_eos" : "kill_alo";
    Path work = Files.createTempDirectory("pg2lite-" + name);
    String topic = stack.kafka().uniqueTopicName(name);
    // The first worker holds the source inside the large transaction after 1,000 of its rows
    // (TestHolds), so the kill lands inside it on any machine; the second has no hold.
    WorkerProcess first = WorkerProcess.start(stack.kafka().bootstrapServers(), "512m", work, exactlyOnce, null,
        Map.of(), List.of("-D" + TestHolds.PROPERTY + "=" + TestHolds.TRANSACTION + name + "_slot=1000"));
    WorkerProcess second = null;
    ExecutorService writer = Executors.newSingleThreadExecutor();
    try (TestDatabase db = stack.postgres().newDatabase(name); SqliteFiles files = new SqliteFiles()) {
      db.execute(Ledger.CREATE, "CREATE PUBLICATION " + name + "_pub FOR TABLE acct");
      Ledger ledger = new Ledger(db, exactlyOnce ? 41 : 42);
      Path replica = files.newFile("r");
      Pipeline.startConnectors(stack, first.rest(), name, db, topic, replica, exactlyOnce,
          Map.of("heartbeat.interval.ms", "1000"), WAIT);
      ledger.write(20, null);
      Pipeline.awaitSame(db, replica, Ledger.PG_ROWS, Ledger.LITE_ROWS, WAIT); // the initial copy is over
      ledger.writeLarge(50_000);
      AtomicBoolean stop = new AtomicBoolean();
      Future<?> small = writer.submit(() -> {
        ledger.write(Integer.MAX_VALUE, stop);
        return null;
      });
      try (TopicReader raw = new TopicReader(stack.kafka().bootstrapServers(), topic, "read_uncommitted")) {
        long[] read = {0}; // each read returns what came since the last one: the held source writes no more
        Await.until("part of the large transaction written", WAIT,
            () -> (read[0] += raw.read(1000, Duration.ofMillis(200)).size()) >= 1000);
      }
      first.kill();
      second = WorkerProcess.start(stack.kafka().bootstrapServers(), "512m", work, exactlyOnce, first.groupId());
      ConnectRestClient again = second.rest();
      Await.until("both connectors running on the new worker", WAIT,
          () -> again.status(name + "-source").isRunning() && again.status(name + "-sink").isRunning());
      long atMove = ledger.transactions();
      // Small transactions go on across the move: the new worker must take those too.
      Await.until("100 more small transactions committed on the new worker", WAIT,
          () -> ledger.transactions() >= atMove + 100);
      stop.set(true);
      small.get();
      Pipeline.awaitSame(db, replica, Ledger.PG_ROWS, Ledger.LITE_ROWS, WAIT);
      Ledger.Audit audit = ledger.audit(replica);
      assertEquals(0, audit.lost(), audit.toString());
      assertEquals(0, audit.twice(), audit.toString());
      assertTrue(audit.rows() > 50_000, audit.toString());
      again.delete(name + "-sink");
      again.delete(name + "-source");
      Await.until("connectors gone and slot released", WAIT, () -> {
        try {
          return again.connectors().isEmpty() && db.queryColumn("SELECT active::text FROM pg_replication_slots "
              + "WHERE slot_name = '" + name + "_slot'").stream().noneMatch("true"::equals);
        } catch (java.sql.SQLException e) {
          throw new IllegalStateException(e);
        }
      });
    } finally {
      writer.shutdownNow();
      first.kill();
      if (second != null) {
        second.close();
      }
    }
  }
}
