package io.pg2lite.sink.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pg2lite.protocol.codec.ChangeLogCodec;
import io.pg2lite.protocol.message.DataChange;
import io.pg2lite.protocol.message.Message;
import io.pg2lite.protocol.value.Value;
import io.pg2lite.testkit.TestStack;
import io.pg2lite.testkit.TestStackExtension;
import io.pg2lite.testkit.connect.ConnectWorker;
import io.pg2lite.testkit.connect.ConnectorStatus;
import io.pg2lite.testkit.connect.StatusWatch;
import io.pg2lite.testkit.kafka.KafkaBroker;
import io.pg2lite.testkit.kafka.TopicReader;
import io.pg2lite.testkit.postgres.PostgresServer;
import io.pg2lite.testkit.support.Await;
import io.pg2lite.testkit.workload.Ledger;
import java.time.Duration;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Issue 11: the pipeline heals from ordinary server faults by itself, with no REST call, and the
 * replica ends equal to Postgres cell by cell with nothing lost and nothing applied twice (both
 * counted by {@link FaultPipeline#assertConverged}). A writer keeps running small transactions
 * through every fault, and a {@link StatusWatch} asserts that no task was ever
 * FAILED. Servers that a test stops are its own (dedicated); the rest is the shared stack.
 */
@ExtendWith(TestStackExtension.class)
class ServerFaultsIT {
  private static final Duration WAIT = FaultPipeline.WAIT;

  /** 1a. {@code pg_ctl restart -m fast} twice while the writer runs. */
  @Test
  void postgresRestartedMidStreamTheSourceResumesByItself(TestStack stack) throws Exception {
    try (PostgresServer pg = PostgresServer.startDedicated();
        FaultPipeline p = new FaultPipeline(pg, stack.kafka().bootstrapServers(), stack.connect(), "sf_restart",
            stack.kafka().uniqueTopicName("sf_restart"))) {
      p.start();
      try (StatusWatch watch = p.watch()) {
        Ledger.Background writer = p.startWriter(11);
        try {
          for (int r = 0; r < 2; r++) {
            p.awaitReplicaRowsAbove(p.replicaRows() + 20, WAIT); // the replica moves before each fault
            pg.restartFast();
            writer.awaitCommits(100, WAIT); // the writer goes on after the restart
          }
          p.awaitReplicaRowsAbove(p.replicaRows() + 20, WAIT); // and the replica follows it by itself
        } finally {
          writer.close();
        }
        System.out.printf("sf_restart: writer committed %d, failed %d%n", writer.commits(), writer.failures());
        assertTrue(writer.failures() > 0, "the restarts cut the writer's connection too");
        p.assertConverged();
        assertNull(watch.failure(), "a task FAILED during the test");
        assertTrue(watch.polls() > 10, "the status was polled during the test");
      }
      assertRunning(p);
    }
  }

  /**
   * 1b. Postgres crashes ({@code pg_ctl stop -m immediate}) while the source streams a
   * 100,000-row transaction: killed once the change log shows part of it (read_uncommitted: the
   * exactly-once source keeps it in an open Kafka transaction), started again 3 s later.
   */
  @Test
  void postgresKilledDuringALargeTransactionTheSourceResumesByItself(TestStack stack) throws Exception {
    try (PostgresServer pg = PostgresServer.startDedicated();
        FaultPipeline p = new FaultPipeline(pg, stack.kafka().bootstrapServers(), stack.connect(), "sf_kill",
            stack.kafka().uniqueTopicName("sf_kill"))) {
      p.start();
      try (StatusWatch watch = p.watch()) {
        Ledger.Background writer = p.startWriter(12);
        long seenBeforeKill;
        try {
          p.awaitReplicaRowsAbove(20, WAIT);
          try (TopicReader raw = new TopicReader(p.bootstrap, p.topic, "read_uncommitted")) {
            p.db.execute("INSERT INTO acct SELECT g, 0 FROM generate_series(1000001, 1100000) g");
            ChangeLogCodec codec = new ChangeLogCodec();
            long[] big = {0};
            Await.until("part of the large transaction in the change log", WAIT, () -> {
              big[0] += bigRows(codec, raw.read(1, Duration.ofMillis(100)));
              return big[0] > 0;
            });
            pg.killImmediate();
            // What the source had written of it when Postgres died (nothing more comes while it is down).
            seenBeforeKill = big[0] + bigRows(codec, raw.readFor(Duration.ofSeconds(2)));
          }
          Thread.sleep(1000); // the outage under test: Postgres stays down this long
          pg.startAgain();
          writer.awaitCommits(100, WAIT);
        } finally {
          writer.close();
        }
        System.out.printf("sf_kill: %d rows of the large transaction in the log at the kill; writer committed %d,"
            + " failed %d%n", seenBeforeKill, writer.commits(), writer.failures());
        assertTrue(seenBeforeKill < 100_000, "the kill cut the large transaction while it streamed");
        p.assertConverged();
        assertEquals(java.util.List.of("100000"),
            p.db.queryColumn("SELECT count(*) FROM acct WHERE id > 1000000"), "the large transaction survived the crash");
        assertNull(watch.failure(), "a task FAILED during the test");
      }
      assertRunning(p);
    }
  }

  /**
   * 2. Postgres is down when the source task starts (REST restart of a running pipeline's source
   * with its tasks while Postgres is stopped) and comes back 20 s later: the task waits RUNNING,
   * never FAILED, then streams.
   */
  @Test
  void postgresDownWhenTheSourceTaskStartsTheTaskWaitsThenRuns(TestStack stack) throws Exception {
    try (PostgresServer pg = PostgresServer.startDedicated();
        FaultPipeline p = new FaultPipeline(pg, stack.kafka().bootstrapServers(), stack.connect(), "sf_down",
            stack.kafka().uniqueTopicName("sf_down"))) {
      p.start();
      try (StatusWatch watch = p.watch()) {
        Ledger.Background writer = p.startWriter(13);
        try {
          p.awaitReplicaRowsAbove(20, WAIT);
          pg.stop();
          long downAt = System.nanoTime();
          p.worker.rest().restart(p.source);
          ConnectorStatus waiting = p.worker.rest().awaitRunning(p.source, Duration.ofSeconds(15));
          assertTrue(waiting.isRunning(), "the restarted task runs while Postgres is down: " + waiting);
          Await.during("the source task not FAILED while Postgres is down",
              Duration.ofNanos(Math.max(0, 20_000_000_000L - (System.nanoTime() - downAt))),
              () -> p.worker.rest().status(p.source).failure() == null);
          assertTrue(p.worker.rest().status(p.source).isRunning(), "still RUNNING after 20 s without Postgres");
          assertNull(watch.failure(), "a task FAILED while Postgres was down");
          pg.startAgain();
          long before = p.replicaRows();
          writer.awaitCommits(100, WAIT);
          p.awaitReplicaRowsAbove(before + 10, WAIT); // the source streams again
        } finally {
          writer.close();
        }
        System.out.printf("sf_down: writer committed %d, failed %d%n", writer.commits(), writer.failures());
        p.assertConverged();
        assertNull(watch.failure(), "a task FAILED during the test");
      }
      assertRunning(p);
    }
  }

  /**
   * 3. The broker stops for 20 s while the writer runs (plus ~8 s for its restart): source, sink
   * and the worker itself resume by themselves. Now and then the restart leaves a hanging Kafka
   * transaction (open on a partition, unknown to its coordinator) that blocks Connect's own
   * start-up for good; the test aborts it as an operator would and counts it (ADR 0018).
   * Everything after that is pg2lite's: nothing lost, nothing applied twice.
   */
  @Test
  void brokerStoppedMidStreamBothConnectorsResumeByThemselves(TestStack stack) throws Exception {
    try (KafkaBroker kafka = KafkaBroker.startDedicated()) {
      ConnectWorker worker = ConnectWorker.builder(kafka.bootstrapServers()).start();
      try (FaultPipeline p = new FaultPipeline(stack.postgres(), kafka.bootstrapServers(), worker, "sf_broker",
          kafka.uniqueTopicName("sf_broker"))) {
        p.start();
        try (StatusWatch watch = p.watch()) {
          Ledger.Background writer = p.startWriter(14);
          int aborted;
          try {
            p.awaitReplicaRowsAbove(20, WAIT);
            kafka.stopBroker();
            try {
              Thread.sleep(20_000); // the outage under test: no broker for 20 s
            } finally {
              kafka.startBroker();
            }
            long before = p.replicaRows();
            writer.awaitCommits(200, WAIT);
            aborted = p.awaitReplicaRowsAboveAbortingHangingTransactions(kafka.admin(), before + 20, WAIT);
          } finally {
            writer.close();
          }
          System.out.printf("sf_broker: writer committed %d, failed %d; hanging Kafka transactions aborted %d%n",
              writer.commits(), writer.failures(), aborted);
          p.assertConverged();
          assertNull(watch.failure(), "a task FAILED during the test");
        }
        assertRunning(p);
      } finally {
        if (!kafka.isBrokerRunning()) {
          kafka.startBroker();
        }
        worker.close();
      }
    }
  }

  /** Inserts of the large transaction (ids above 1,000,000) among {@code records}. */
  private static long bigRows(ChangeLogCodec codec, java.util.List<ConsumerRecord<byte[], byte[]>> records) {
    long n = 0;
    for (ConsumerRecord<byte[], byte[]> rec : records) {
      Message m = codec.decode(rec.value()).message();
      if (m instanceof DataChange.Insert i && ((Value.Int) i.row().get("id")).value() > 1_000_000) {
        n++;
      }
    }
    return n;
  }

  private static void assertRunning(FaultPipeline p) {
    for (String c : new String[] {p.source, p.sink}) {
      ConnectorStatus s = p.worker.rest().status(c);
      assertTrue(s.isRunning(), c + " RUNNING at the end: " + s);
    }
  }
}
