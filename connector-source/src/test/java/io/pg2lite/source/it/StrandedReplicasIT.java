package io.pg2lite.source.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pg2lite.connect.kafka.StrandedReplica;
import io.pg2lite.protocol.message.Begin;
import io.pg2lite.protocol.message.ChangeLogEntry;
import io.pg2lite.protocol.message.NewLineage;
import io.pg2lite.testkit.TestStack;
import io.pg2lite.testkit.TestStackExtension;
import io.pg2lite.testkit.support.Await;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.atomic.AtomicBoolean;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.admin.RecordsToDelete;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Issue 35: with resync.auto the source reads the stranded marks replicas leave in their consumer
 * groups' offset metadata and starts a new lineage for a group that has members, never for a
 * group without (a deleted sink's). The groups here are plain consumers, as any replica may be.
 */
@ExtendWith(TestStackExtension.class)
class StrandedReplicasIT {
  private static final Duration WAIT = Duration.ofSeconds(90);
  /** resync.check.interval.ms of the source under test. */
  private static final Duration INTERVAL = Duration.ofSeconds(1);

  @Test
  void aStrandedGroupWithMembersStartsOneNewLineageAndOneWithoutMembersNone(TestStack stack) throws Exception {
    try (SourceFixture f = new SourceFixture(stack, "stranded_src")) {
      f.db.execute("CREATE TABLE t (id bigint PRIMARY KEY)", "CREATE PUBLICATION stranded_src_pub FOR TABLE t",
          "INSERT INTO t SELECT generate_series(1, 20)");
      Map<String, String> config = f.config();
      config.put("resync.auto", "true");
      config.put("resync.check.interval.ms", Long.toString(INTERVAL.toMillis()));
      f.start(config);
      for (int i = 21; i <= 25; i++) {
        f.db.execute("INSERT INTO t VALUES (" + i + ")");
      }
      f.awaitEntries(3 + 5 * 3, WAIT); // the first-start transaction, then the five inserts'
      String version = f.allEntries().get(0).watermark().majorOnly().toString();
      TopicPartition tp = new TopicPartition(f.topic, 0);
      long end = stack.kafka().admin().listOffsets(Map.of(tp, OffsetSpec.latest())).all().get().get(tp).offset();
      stack.kafka().admin().deleteRecords(Map.of(tp, RecordsToDelete.beforeOffset(end - 3))).all().get();
      String mark = new StrandedReplica(version, 0).metadata(); // needs offset 0, deleted now

      String gone = f.name + "-deleted-sink";
      try (KafkaConsumer<byte[], byte[]> c = consumer(stack, gone)) {
        c.assign(List.of(tp));
        c.commitSync(Map.of(tp, new OffsetAndMetadata(0, mark))); // then closed: the group keeps it, memberless
      }
      Await.during("no new lineage for a group without members (" + 5 * INTERVAL.toMillis() + " ms of looks)",
          INTERVAL.multipliedBy(5), () -> newLineages(f).isEmpty() && running(f));

      String stranded = f.name + "-stranded";
      try (MarkingMember member = new MarkingMember(stack, stranded, tp, mark)) {
        Await.until("a new lineage", WAIT, () -> !newLineages(f).isEmpty());
        NewLineage lineage = newLineages(f).get(0).lineage();
        assertEquals(version, lineage.previous());
        assertTrue(lineage.reason().contains("consumer group " + stranded + " is stranded")
            && lineage.reason().contains("needs change-log record offset 0"), lineage.reason());
        assertFalse(lineage.reason().contains(gone), lineage.reason());
        Await.during("one new lineage only: the member's mark names the lineage that ended",
            INTERVAL.multipliedBy(5), () -> newLineages(f).size() == 1 && running(f));
        assertTrue(member.committed.get(), "the member's mark was committed");
      }
    }
  }

  private static List<Begin> newLineages(SourceFixture f) {
    List<ChangeLogEntry> log = f.readAll(Duration.ofMillis(200));
    return log.stream().map(ChangeLogEntry::message)
        .filter(m -> m instanceof Begin b && b.lineage() != null).map(Begin.class::cast).toList();
  }

  private static boolean running(SourceFixture f) {
    return f.stack.connect().rest().status(f.name).isRunning();
  }

  private static KafkaConsumer<byte[], byte[]> consumer(TestStack stack, String group) {
    Properties p = new Properties();
    p.put("bootstrap.servers", stack.kafka().bootstrapServers());
    p.put("group.id", group);
    p.put("enable.auto.commit", "false");
    p.put("auto.offset.reset", "latest");
    return new KafkaConsumer<>(p, new ByteArrayDeserializer(), new ByteArrayDeserializer());
  }

  /**
   * A member of a group that subscribes to the change log (so that the group shows it as a
   * member, which an assigned consumer is not) and commits the mark once it is assigned the
   * partition, polling on its own thread as a live replica would.
   */
  private static final class MarkingMember implements AutoCloseable {
    final AtomicBoolean committed = new AtomicBoolean();
    private final AtomicBoolean closing = new AtomicBoolean();
    private final Thread thread;
    private volatile Throwable failure;

    MarkingMember(TestStack stack, String group, TopicPartition tp, String mark) {
      thread = new Thread(() -> {
        try (KafkaConsumer<byte[], byte[]> c = consumer(stack, group)) {
          c.subscribe(List.of(tp.topic()));
          while (!closing.get()) {
            c.poll(Duration.ofMillis(100));
            if (!committed.get() && c.assignment().contains(tp)) {
              c.commitSync(Map.of(tp, new OffsetAndMetadata(0, mark)));
              committed.set(true);
            }
          }
        } catch (Throwable t) {
          failure = t;
        }
      }, "stranded-member-" + group);
      thread.setDaemon(true);
      thread.start();
    }

    @Override
    public void close() throws InterruptedException {
      closing.set(true);
      thread.join(30_000);
      if (failure != null) {
        throw new AssertionError("the group member failed", failure);
      }
    }
  }
}
