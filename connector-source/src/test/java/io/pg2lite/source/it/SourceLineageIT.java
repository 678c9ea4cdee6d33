package io.pg2lite.source.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pg2lite.protocol.message.ChangeLogEntry;
import io.pg2lite.protocol.message.MessageKind;
import io.pg2lite.testkit.TestStack;
import io.pg2lite.testkit.TestStackExtension;
import io.pg2lite.testkit.connect.ConnectorStatus;
import io.pg2lite.testkit.kafka.TopicReader;
import io.pg2lite.testkit.support.Await;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.stream.LongStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Issue 10, defects 2 and 5: the source never silently starts a second lineage when its offsets
 * are missing, and a replication connection lost inside a transaction closes it with a rollback
 * and sends it again whole.
 */
@ExtendWith(TestStackExtension.class)
class SourceLineageIT {
  private static final Duration WAIT = Duration.ofSeconds(90);

  /** The lost-offsets case: same slot, same topic, no offsets (another connector name). */
  @Test
  void missingOffsetsWithAnExistingLogFailClearlyInsteadOfStartingANewLineage(TestStack stack) throws Exception {
    try (SourceFixture f = new SourceFixture(stack, "lineage_lost")) {
      f.db.execute("CREATE TABLE t (id bigint PRIMARY KEY)", "CREATE PUBLICATION lineage_lost_pub FOR TABLE t");
      f.start();
      f.db.execute("INSERT INTO t VALUES (1)");
      f.awaitEntries(6, WAIT); // first-start transaction (begin, create-table, commit), then the insert's
      Await.until("offsets stored (slot confirmed past its consistent point)", WAIT, () -> slotConfirmedMoved(f));
      f.stopConnector();
      Await.until("slot released", WAIT, () -> query(f, "SELECT active::text FROM pg_replication_slots "
          + "WHERE slot_name = 'lineage_lost_slot'").stream().noneMatch("true"::equals));
      Map<String, String> renamed = f.config();
      renamed.put("name", "lineage_lost_renamed");
      f.stack.connect().rest().putConnector("lineage_lost_renamed", renamed);
      try {
        ConnectorStatus failed = f.stack.connect().rest().awaitFailed("lineage_lost_renamed", WAIT);
        assertTrue(failed.failure().contains("offsets were lost") && failed.failure().contains("lineage_lost_slot"),
            failed.failure());
        List<ChangeLogEntry> log = f.readAll(Duration.ofSeconds(2));
        assertEquals(1, log.stream().filter(e -> e.message() instanceof io.pg2lite.protocol.message.Begin b && !b.backfill()
            && e.watermark().minor() != null)
            .count(), "one first-start transaction only: no second lineage was written");
      } finally {
        f.stack.connect().rest().delete("lineage_lost_renamed");
      }
    }
  }

  /**
   * Sequence numbers (ADR 0010) run from 0 without a hole, also when the log's first Kafka
   * transaction was aborted (a worker killed before its first commit): a new replica must find
   * record number 0, and after a restart the numbers continue the log's last committed record.
   */
  @Test
  void sequenceNumbersStartAtZeroAfterAnAbortedFirstTransactionAndContinueAcrossRestarts(TestStack stack)
      throws Exception {
    try (SourceFixture f = new SourceFixture(stack, "lineage_seq")) {
      f.db.execute("CREATE TABLE t (id bigint PRIMARY KEY)", "CREATE PUBLICATION lineage_seq_pub FOR TABLE t");
      stack.kafka().createTopic(f.topic, 1);
      java.util.Properties p = new java.util.Properties();
      p.put("bootstrap.servers", stack.kafka().bootstrapServers());
      p.put("transactional.id", "lineage-seq-zombie");
      try (org.apache.kafka.clients.producer.KafkaProducer<byte[], byte[]> zombie =
          new org.apache.kafka.clients.producer.KafkaProducer<>(p,
              new org.apache.kafka.common.serialization.ByteArraySerializer(),
              new org.apache.kafka.common.serialization.ByteArraySerializer())) {
        zombie.initTransactions();
        zombie.beginTransaction();
        for (int i = 0; i < 5; i++) {
          zombie.send(new org.apache.kafka.clients.producer.ProducerRecord<>(f.topic, 0, null, new byte[] {'x'}));
        }
        zombie.flush();
        zombie.abortTransaction(); // offsets 0-5 taken, no committed record
      }
      f.start();
      f.db.execute("INSERT INTO t VALUES (1)");
      f.awaitEntries(6, WAIT);
      stack.connect().rest().restart(f.name);
      stack.connect().rest().awaitRunning(f.name, WAIT);
      f.db.execute("INSERT INTO t VALUES (2)");
      Await.until("the second insert in the log", WAIT, () -> seqs(stack, f).size() >= 9);
      List<Long> seqs = seqs(stack, f);
      assertEquals(LongStream.range(0, seqs.size()).boxed().toList(), seqs,
          "numbered from 0, one by one, across the aborted transaction and the restart");
    }
  }

  private static List<Long> seqs(TestStack stack, SourceFixture f) {
    try (TopicReader r = new TopicReader(
        stack.kafka().bootstrapServers(), f.topic)) {
      return r.readToEnd(Duration.ofMinutes(1)).stream().map(rec -> Long.valueOf(new String(
          rec.headers().lastHeader(io.pg2lite.protocol.message.ChangeLogHeaders.SEQ).value(),
          java.nio.charset.StandardCharsets.UTF_8))).toList();
    }
  }

  /** Lost offsets with resync.auto: a new lineage in the same topic instead of a failed task. */
  @Test
  void withResyncAutoLostOffsetsStartANewLineageInTheSameTopic(TestStack stack) throws Exception {
    try (SourceFixture f = new SourceFixture(stack, "lineage_auto")) {
      f.db.execute("CREATE TABLE t (id bigint PRIMARY KEY)", "CREATE PUBLICATION lineage_auto_pub FOR TABLE t",
          "INSERT INTO t SELECT generate_series(1, 20)");
      f.start();
      f.db.execute("INSERT INTO t VALUES (21)");
      f.awaitEntries(6, WAIT);
      f.awaitPositionStored(WAIT);
      String previous = f.allEntries().get(0).watermark().majorOnly().toString();
      // Until the slot confirms past its consistent point the same lineage safely goes on (adopted).
      Await.until("offsets stored (slot confirmed past its consistent point)", WAIT,
          () -> slotConfirmedMoved(f, "lineage_auto_slot"));
      f.stopConnector();
      Await.until("slot released", WAIT, () -> query(f, "SELECT active::text FROM pg_replication_slots "
          + "WHERE slot_name = 'lineage_auto_slot'").stream().noneMatch("true"::equals));
      Map<String, String> renamed = f.config();
      renamed.put("name", "lineage_auto_renamed");
      renamed.put("resync.auto", "true");
      f.stack.connect().rest().putConnector("lineage_auto_renamed", renamed);
      try {
        f.stack.connect().rest().awaitRunning("lineage_auto_renamed", WAIT);
        Await.until("a new lineage whose backfill copied all 21 rows", WAIT,
            () -> copiedAfterNewLineage(f.readAll(Duration.ofMillis(500))) >= 21);
        io.pg2lite.protocol.message.Begin b = (io.pg2lite.protocol.message.Begin) newLineage(f.allEntries()).message();
        assertEquals(previous, b.lineage().previous());
        assertTrue(b.lineage().reason().contains("offsets were lost"), b.lineage().reason());
      } finally {
        f.stack.connect().rest().delete("lineage_auto_renamed");
      }
    }
  }

  /**
   * A topic deleted under a stopped source (its offsets kept): with resync.auto the source finds
   * the log gone and starts a new lineage at the start of the new topic, its first record.
   */
  @Test
  void withResyncAutoADeletedTopicGetsANewLineageFromItsFirstRecord(TestStack stack) throws Exception {
    try (SourceFixture f = new SourceFixture(stack, "lineage_topic")) {
      f.db.execute("CREATE TABLE t (id bigint PRIMARY KEY)", "CREATE PUBLICATION lineage_topic_pub FOR TABLE t",
          "INSERT INTO t SELECT generate_series(1, 20)");
      Map<String, String> config = f.config();
      config.put("resync.auto", "true");
      f.start(config);
      f.db.execute("INSERT INTO t VALUES (21)");
      f.awaitEntries(6, WAIT);
      f.awaitPositionStored(WAIT);
      String previous = f.allEntries().get(0).watermark().majorOnly().toString();
      stack.connect().rest().stop(f.name); // stopped, its offsets kept
      stack.connect().rest().awaitStopped(f.name, WAIT);
      stack.kafka().admin().deleteTopics(List.of(f.topic)).all().get();
      Await.until("topic deleted", WAIT, () -> {
        try {
          return !stack.kafka().admin().listTopics().names().get().contains(f.topic);
        } catch (Exception e) {
          throw new IllegalStateException(e);
        }
      });
      stack.connect().rest().resume(f.name);
      Await.until("the source created the topic again", WAIT, () -> {
        try {
          return stack.kafka().admin().listTopics().names().get().contains(f.topic);
        } catch (Exception e) {
          throw new IllegalStateException(e);
        }
      });
      try (TopicReader fresh = new TopicReader(stack.kafka().bootstrapServers(), f.topic)) {
        List<ChangeLogEntry> log = new java.util.ArrayList<>();
        io.pg2lite.protocol.codec.ChangeLogCodec codec = new io.pg2lite.protocol.codec.ChangeLogCodec();
        Await.until("the new topic's log holds the new lineage and its copy of all 21 rows", WAIT, () -> {
          fresh.read(1000, Duration.ofMillis(500)).forEach(r -> log.add(codec.decode(r.value())));
          return copiedAfterNewLineage(log) >= 21;
        });
        ChangeLogEntry first = log.get(0);
        assertTrue(first.message() instanceof io.pg2lite.protocol.message.Begin b && b.lineage() != null
            && b.lineage().previous().equals(previous) && b.lineage().reason().contains("deleted"),
            "the new topic begins with the new lineage: " + first);
        io.pg2lite.protocol.message.ChangeLogRules rules = new io.pg2lite.protocol.message.ChangeLogRules();
        log.forEach(rules::accept);
      }
    }
  }

  private static ChangeLogEntry newLineage(List<ChangeLogEntry> log) {
    return log.stream().filter(e -> e.message() instanceof io.pg2lite.protocol.message.Begin b && b.lineage() != null)
        .findFirst().orElse(null);
  }

  /** Rows copied by backfill transactions after the new lineage's begin. */
  private static long copiedAfterNewLineage(List<ChangeLogEntry> log) {
    ChangeLogEntry begin = newLineage(log);
    if (begin == null) {
      return 0;
    }
    return log.subList(log.indexOf(begin), log.size()).stream()
        .filter(e -> e.message() instanceof io.pg2lite.protocol.message.DataChange.Backfill)
        .mapToLong(e -> ((io.pg2lite.protocol.message.DataChange.Backfill) e.message()).rowValues().size()).sum();
  }

  private static List<String> query(SourceFixture f, String sql) {
    try {
      return f.db.queryColumn(sql);
    } catch (java.sql.SQLException e) {
      throw new IllegalStateException(e);
    }
  }

  private static boolean slotConfirmedMoved(SourceFixture f) {
    return slotConfirmedMoved(f, "lineage_lost_slot");
  }

  private static boolean slotConfirmedMoved(SourceFixture f, String slot) {
    // The consistent point is the replica version; once the source acknowledged a commit the slot moved past it.
    String rv = f.readAll(Duration.ofMillis(100)).get(0).watermark().majorOnly().toString();
    String confirmed = query(f, "SELECT confirmed_flush_lsn::text FROM pg_replication_slots WHERE "
        + "slot_name = '" + slot + "'").get(0);
    return !io.pg2lite.protocol.watermark.Watermark.fromLsn(confirmed).toString().equals(rv);
  }

  /** A slot created beforehand (by an operator, or by a start that wrote nothing) with an empty log is adopted. */
  @Test
  void anExistingSlotWithAnEmptyLogIsAdopted(TestStack stack) throws Exception {
    try (SourceFixture f = new SourceFixture(stack, "lineage_adopt")) {
      f.db.execute("CREATE TABLE t (id bigint PRIMARY KEY)", "CREATE PUBLICATION lineage_adopt_pub FOR TABLE t");
      io.pg2lite.protocol.watermark.Lsn created = f.db.createLogicalSlot("lineage_adopt_slot");
      f.start();
      List<ChangeLogEntry> log = f.awaitEntries(1, WAIT);
      assertEquals(io.pg2lite.protocol.watermark.Watermark.fromLsn(created).nextMinor(), log.get(0).watermark(),
          "the replica version is the adopted slot's consistent point");
    }
  }

  /**
   * Defect 5: the walsender is terminated while a large transaction streams; the replication
   * stream reconnects and sends the transaction again from its begin. The log closes the part
   * already written with a rollback and holds the transaction once, whole.
   */
  @Test
  void aReplicationRestartInsideATransactionRollsBackAndResendsIt(TestStack stack) throws Exception {
    try (SourceFixture f = new SourceFixture(stack, "lineage_resend")) {
      f.db.execute("CREATE TABLE t (id bigint PRIMARY KEY, pad text)",
          "CREATE PUBLICATION lineage_resend_pub FOR TABLE t");
      Map<String, String> config = f.config();
      config.put("debezium.retriable.restart.connector.wait.ms", "500");
      f.start(config);
      f.awaitEntries(3, WAIT); // the first-start transaction: begin, create-table, commit
      int n = 60_000;
      f.db.execute("INSERT INTO t SELECT g, repeat('p', 100) FROM generate_series(1, " + n + ") g");
      try (TopicReader raw = new TopicReader(
          stack.kafka().bootstrapServers(), f.topic, "read_uncommitted")) {
        Await.until("part of the big transaction written", WAIT,
            () -> raw.read(2000, Duration.ofMillis(100)).size() > 1000);
      }
      List<String> killed = f.db.queryColumn("SELECT pg_terminate_backend(active_pid)::text FROM pg_replication_slots "
          + "WHERE slot_name = 'lineage_resend_slot'");
      assertEquals(List.of("true"), killed, "the walsender was streaming and is terminated");
      f.db.execute("INSERT INTO t VALUES (" + (n + 1) + ", 'after')");
      Await.until("the big transaction and the next one in the log", Duration.ofMinutes(3),
          () -> ReplayRule.insertedIds(f.awaitEntries(1, Duration.ofMillis(500)), "id").size() >= n + 1);
      assertEquals(LongStream.rangeClosed(1, n + 1).boxed().toList(), ReplayRule.insertedIds(f.entries(), "id"),
          "every row once, in order");
      assertTrue(f.entries().stream().anyMatch(e -> e.kind() == MessageKind.ROLLBACK),
          "the part written before the connection was lost is closed by a rollback");
      assertTrue(stack.connect().rest().status(f.name).isRunning(), "the task healed by itself");
    }
  }
}
