package io.pg2lite.sink.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pg2lite.testkit.TestStack;
import io.pg2lite.testkit.TestStackExtension;
import io.pg2lite.testkit.connect.ConnectorStatus;
import io.pg2lite.testkit.sqlite.SqliteFiles;
import io.pg2lite.testkit.support.Await;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.List;
import java.util.Properties;
import java.util.Random;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicBoolean;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/** Postgres → source → Kafka → sink → SQLite, on real servers. */
@ExtendWith(TestStackExtension.class)
class EndToEndIT {
  private static final String PG_ROWS = "SELECT id, name, qty, price, flag FROM item ORDER BY id";
  private static final String LITE_ROWS = "SELECT id, name, qty, price, CASE flag WHEN 1 THEN 't' WHEN 0 THEN 'f' END "
      + "FROM item ORDER BY id";

  private static void randomWorkload(Pipeline p, Random random, int transactions) throws Exception {
    try (Connection c = p.db.connect(); Statement s = c.createStatement()) {
      c.setAutoCommit(false);
      for (int t = 0; t < transactions; t++) {
        int ops = 1 + random.nextInt(5);
        for (int o = 0; o < ops; o++) {
          int id = random.nextInt(200);
          switch (random.nextInt(4)) {
            case 0, 1 -> s.execute("INSERT INTO item VALUES (" + id + ", 'n" + random.nextInt(1000) + "', "
                + random.nextInt(100) + ", " + random.nextInt(10000) / 100.0 + ", " + random.nextBoolean()
                + ") ON CONFLICT (id) DO UPDATE SET name = excluded.name, qty = excluded.qty");
            case 2 -> s.execute("UPDATE item SET qty = qty + 1, flag = NOT flag WHERE id = " + id);
            default -> s.execute("DELETE FROM item WHERE id = " + id);
          }
        }
        c.commit();
      }
    }
  }

  private static void createItem(Pipeline p) throws Exception {
    p.db.execute("CREATE TABLE item (id int PRIMARY KEY, name text, qty int, price numeric(10,2), flag bool)",
        "CREATE PUBLICATION " + p.name + "_pub FOR TABLE item");
  }

  @Test
  void aRandomWorkloadReplicatesExactlyAndTwoSinksAgree(TestStack stack) throws Exception {
    try (Pipeline p = new Pipeline(stack, "e2e_random")) {
      createItem(p);
      p.startSource();
      Path a = p.files.newFile("a");
      Path b = p.files.newFile("b");
      p.startSink("a", a);
      p.startSink("b", b);
      randomWorkload(p, new Random(1), 300);
      p.db.execute("ALTER TABLE item ADD COLUMN note text DEFAULT 'x'");
      p.db.execute("UPDATE item SET note = 'n' || id WHERE id % 3 = 0");
      p.awaitEqual(a, PG_ROWS, LITE_ROWS);
      p.awaitEqual(a, "SELECT id, note FROM item ORDER BY id", "SELECT id, note FROM item ORDER BY id");
      p.awaitEqual(b, "SELECT id, note FROM item ORDER BY id", "SELECT id, note FROM item ORDER BY id");
      assertEquals(Pipeline.replica(a, LITE_ROWS + ""), Pipeline.replica(b, LITE_ROWS), "two replicas, same rows");
      assertEquals(Pipeline.replica(a, "SELECT watermark FROM \"_pg2lite.state\""),
          Pipeline.replica(b, "SELECT watermark FROM \"_pg2lite.state\""), "and the same watermark");
    }
  }

  @Test
  void aSinkStoppedMidApplyCatchesUpByOffsetWithNothingDuplicated(TestStack stack) throws Exception {
    try (Pipeline p = new Pipeline(stack, "e2e_restart")) {
      createItem(p);
      p.startSource();
      Path replica = p.files.newFile("r");
      String sink = p.startSink("r", replica);
      ExecutorService writer = Executors.newSingleThreadExecutor();
      Future<?> writes = writer.submit(() -> {
        randomWorkload(p, new Random(2), 400);
        return null;
      });
      for (int i = 0; i < 3; i++) {
        Await.until("the replica moving", Pipeline.WAIT, () -> {
          try {
            return !Pipeline.replica(replica, "SELECT 1 FROM item").isEmpty();
          } catch (java.sql.SQLException e) {
            return false;
          }
        });
        p.worker.rest().restart(sink); // the task stops wherever it is and resumes from the replica's offset
        p.worker.rest().awaitRunning(sink, Pipeline.WAIT);
      }
      writes.get();
      writer.shutdown();
      p.awaitEqual(replica, PG_ROWS, LITE_ROWS);
    }
  }

  /** A new replica made by copying a live one (SQLite backup API) catches up from the copy's own offset. */
  @Test
  void aReplicaCopiedWithTheBackupApiCatchesUpFromItsOwnOffset(TestStack stack) throws Exception {
    try (Pipeline p = new Pipeline(stack, "e2e_copy")) {
      createItem(p);
      p.startSource();
      Path original = p.files.newFile("original");
      p.startSink("original", original);
      randomWorkload(p, new Random(4), 50);
      p.awaitEqual(original, PG_ROWS, LITE_ROWS);
      Path copy = p.files.newFile("copy");
      try (Connection c = SqliteFiles.open(original); Statement s = c.createStatement()) {
        s.executeUpdate("backup to " + copy);
      }
      List<List<String>> copiedState = Pipeline.replica(copy, "SELECT kafka_offset FROM \"_pg2lite.state\"");
      randomWorkload(p, new Random(5), 50); // the log moves on after the copy
      p.startSink("copy", copy);
      p.awaitEqual(copy, PG_ROWS, LITE_ROWS);
      assertEquals(Pipeline.replica(original, LITE_ROWS), Pipeline.replica(copy, LITE_ROWS));
      assertTrue(Long.parseLong(Pipeline.replica(copy, "SELECT kafka_offset FROM \"_pg2lite.state\"").get(0).get(0))
          > Long.parseLong(copiedState.get(0).get(0)), "the copy applied only what came after its own offset");
    }
  }

  @Test
  void readersNeverSeeAPartialTransaction(TestStack stack) throws Exception {
    try (Pipeline p = new Pipeline(stack, "e2e_readers")) {
      p.db.execute("CREATE TABLE account (id int PRIMARY KEY, balance int NOT NULL)",
          "INSERT INTO account SELECT g, 100 FROM generate_series(1, 10) g",
          "CREATE PUBLICATION e2e_readers_pub FOR TABLE account");
      p.startSource();
      Path replica = p.files.newFile("r");
      p.startSink("r", replica);
      // Rows that existed before the start arrive with the backfill (not built yet): start from zero balances.
      p.db.execute("UPDATE account SET balance = 100");
      p.awaitEqual(replica, "SELECT sum(balance) FROM account", "SELECT sum(balance) FROM account");
      AtomicBoolean done = new AtomicBoolean();
      ExecutorService reader = Executors.newSingleThreadExecutor();
      Future<Integer> violations = reader.submit(() -> {
        int bad = 0;
        while (!done.get()) {
          try (Connection c = SqliteFiles.open(replica); Statement s = c.createStatement();
              ResultSet rs = s.executeQuery("SELECT sum(balance) FROM account")) {
            if (rs.next() && rs.getInt(1) != 1000) {
              bad++;
            }
          }
        }
        return bad;
      });
      Random random = new Random(3);
      try (Connection c = p.db.connect(); Statement s = c.createStatement()) {
        c.setAutoCommit(false);
        for (int i = 0; i < 300; i++) { // transfers keep the total at 1000
          int from = 1 + random.nextInt(10);
          int to = 1 + random.nextInt(10);
          s.execute("UPDATE account SET balance = balance - 7 WHERE id = " + from);
          s.execute("UPDATE account SET balance = balance + 7 WHERE id = " + to);
          c.commit();
        }
      }
      p.awaitEqual(replica, "SELECT id, balance FROM account ORDER BY id", "SELECT id, balance FROM account ORDER BY id");
      done.set(true);
      assertEquals(0, violations.get(), "a reader saw a partial transaction");
    }
  }

  @Test
  void aReplicaWhoseOffsetsWereDeletedByRetentionFailsAsTooFarBehind(TestStack stack) throws Exception {
    try (Pipeline p = new Pipeline(stack, "e2e_behind")) {
      Path replica = p.files.newFile("r");
      String sink = startWithOneItem(p, replica);
      p.worker.rest().delete(sink);
      Await.until("sink deleted", Pipeline.WAIT, () -> !p.worker.rest().connectors().contains(sink));
      for (int i = 2; i < 10; i++) {
        p.db.execute("INSERT INTO item VALUES (" + i + ", 'more', 1, 1.00, true)");
      }
      Await.until("the source wrote them", Pipeline.WAIT, () -> endOffset(stack, p.topic) > 20);
      // Retention: delete everything up to the last few records.
      org.apache.kafka.common.TopicPartition tp = new org.apache.kafka.common.TopicPartition(p.topic, 0);
      long end = endOffset(stack, p.topic);
      stack.kafka().admin().deleteRecords(java.util.Map.of(tp,
          org.apache.kafka.clients.admin.RecordsToDelete.beforeOffset(end - 2))).all().get();
      p.worker.rest().putConnector(sink, p.sinkConfig(sink, replica));
      ConnectorStatus failed = p.worker.rest().awaitFailed(sink, Pipeline.WAIT);
      assertTrue(failed.failure().contains("replica too far behind, resync"), failed.failure());
      assertEquals(List.of(List.of("1", "one", "1", "1.00", "t")), Pipeline.replica(replica, LITE_ROWS),
          "the replica is untouched");
    }
  }

  /** Source and one sink running, item row 1 replicated; returns the sink's name. */
  private static String startWithOneItem(Pipeline p, Path replica) throws Exception {
    createItem(p);
    p.startSource();
    String sink = p.startSink("r", replica);
    p.db.execute("INSERT INTO item VALUES (1, 'one', 1, 1.00, true)");
    p.awaitEqual(replica, PG_ROWS, LITE_ROWS);
    return sink;
  }

  private static long endOffset(TestStack stack, String topic) {
    try {
      org.apache.kafka.common.TopicPartition tp = new org.apache.kafka.common.TopicPartition(topic, 0);
      return stack.kafka().admin().listOffsets(java.util.Map.of(tp, org.apache.kafka.clients.admin.OffsetSpec.latest()))
          .all().get().get(tp).offset();
    } catch (Exception e) {
      throw new IllegalStateException(e);
    }
  }

  @Test
  void aPoisonRecordFailsTheTaskClearlyAndTheReplicaKeepsItsLastCommit(TestStack stack) throws Exception {
    try (Pipeline p = new Pipeline(stack, "e2e_poison")) {
      Path replica = p.files.newFile("r");
      String sink = startWithOneItem(p, replica);
      List<List<String>> before = Pipeline.replica(replica, LITE_ROWS);
      Properties props = new Properties();
      props.put("bootstrap.servers", stack.kafka().bootstrapServers());
      try (KafkaProducer<byte[], byte[]> producer = new KafkaProducer<>(props, new ByteArraySerializer(),
          new ByteArraySerializer())) {
        producer.send(new ProducerRecord<>(p.topic, "{\"v\":1,\"oops\":true}".getBytes(StandardCharsets.UTF_8))).get();
      }
      ConnectorStatus failed = p.worker.rest().awaitFailed(sink, Pipeline.WAIT);
      assertTrue(failed.failure().contains("Cannot apply change-log record " + p.topic + "-0@"), failed.failure());
      assertTrue(failed.failure().contains("unknown field \"oops\""), failed.failure());
      assertEquals(before, Pipeline.replica(replica, LITE_ROWS), "nothing committed is lost");
    }
  }
}
