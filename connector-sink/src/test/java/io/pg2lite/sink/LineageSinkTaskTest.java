package io.pg2lite.sink;

import static io.pg2lite.replica.lineage.LineageLog.V1;
import static io.pg2lite.replica.lineage.LineageLog.V2;
import static io.pg2lite.replica.lineage.ReplicaFiles.ids;
import static io.pg2lite.replica.lineage.ReplicaFiles.range;
import static io.pg2lite.replica.lineage.ReplicaFiles.version;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pg2lite.replica.lineage.ChangeLogRecord;
import io.pg2lite.replica.lineage.LineageLog;
import io.pg2lite.replica.lineage.ReplicaFiles;
import io.pg2lite.protocol.message.ChangeLogHeaders;
import io.pg2lite.sink.FakeSinkContext;
import io.pg2lite.sink.Pg2liteSinkTask;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import javax.management.ObjectName;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.connect.header.ConnectHeaders;
import org.apache.kafka.connect.sink.SinkRecord;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The sink task as Connect drives it through a resync: the replica of the old lineage stays what
 * readers open until the new one is whole, a restart in the middle of the build goes on with it,
 * and a topic deleted and created again is followed from its first record.
 */
class LineageSinkTaskTest {
  private static final TopicPartition TP = new TopicPartition(LineageLog.TOPIC, 0);
  private static final String REASON = "replication slot pg2lite was invalidated by Postgres (wal_removed)";
  @TempDir Path dir;
  private final FakeSinkContext context = new FakeSinkContext(TP);
  private final List<Pg2liteSinkTask> running = new ArrayList<>();

  private Pg2liteSinkTask start(String name) {
    return start(name, Map.of());
  }

  private Pg2liteSinkTask start(String name, Map<String, String> extra) {
    Pg2liteSinkTask task = new Pg2liteSinkTask();
    task.initialize(context);
    Map<String, String> props = new java.util.HashMap<>(extra);
    props.put("name", name);
    props.put("replica.path", dir.resolve("replica.db").toString());
    task.start(props);
    task.open(List.of(TP));
    running.add(task);
    return task;
  }

  private void stop(Pg2liteSinkTask task) {
    task.close(List.of(TP));
    task.stop();
    running.remove(task);
  }

  @AfterEach
  void stopAll() {
    new ArrayList<>(running).forEach(this::stop);
  }

  private static List<SinkRecord> sink(List<ChangeLogRecord> records) {
    List<SinkRecord> out = new ArrayList<>();
    for (ChangeLogRecord r : records) {
      ConnectHeaders h = new ConnectHeaders();
      h.addString(ChangeLogHeaders.REPLICA_VERSION, r.replicaVersion());
      h.addString(ChangeLogHeaders.SEQ, Long.toString(r.seq()));
      out.add(new SinkRecord(r.topic(), r.partition(), null, null, null, r.value(), r.offset(), null, null, h));
    }
    return out;
  }

  /** What Connect delivers after a seek to {@code offset}: the records from there on. */
  private static List<SinkRecord> from(long offset, List<ChangeLogRecord> records) {
    return sink(records.stream().filter(r -> r.offset() >= offset).toList());
  }

  private static Object mbean(String name, String attribute) throws Exception {
    return ManagementFactory.getPlatformMBeanServer().getAttribute(new ObjectName("io.pg2lite:type=sink,connector="
        + ObjectName.quote(name)), attribute);
  }

  private long committedOffset(Pg2liteSinkTask task) {
    OffsetAndMetadata o = task.preCommit(Map.of()).get(TP);
    return o == null ? -1 : o.offset();
  }

  @Test
  void theReplicaKeepsItsLineageUntilTheNewOneIsWholeAndARestartGoesOnWithTheBuild() throws Exception {
    Path path = dir.resolve("replica.db");
    Pg2liteSinkTask task = start("lineage-task");
    LineageLog log = new LineageLog().firstStart(V1, "a", "b").copy("a", 1, 3, true).copy("b", 1, 2, true)
        .insert("a", 4);
    task.put(sink(log.records()));
    assertEquals(V1, version(path));
    assertEquals(range(1, 4), ids(path, "a"));
    assertEquals(V1, mbean("lineage-task", "ReplicaVersion"));

    int done = log.size();
    log.openInsert("a", 5).rollback(V2).newLineage(V2, REASON, "a", "b").copy("a", 1, 10, false);
    task.put(sink(log.from(done)));
    assertEquals(V1, version(path), "readers keep the old lineage while the new one is built");
    assertEquals(range(1, 4), ids(path, "a"));
    assertEquals(range(1, 2), ids(path, "b"));
    assertEquals(V2, mbean("lineage-task", "BuildingReplicaVersion"));
    assertEquals(V1, mbean("lineage-task", "ReplicaVersion"));
    long built = log.records().get(log.size() - 1).offset();
    assertEquals(built + 1, committedOffset(task), "Connect's offset follows the build");

    stop(task); // a restart in the middle of the build
    Pg2liteSinkTask again = start("lineage-task");
    assertEquals(built + 1, context.offsets.get(TP), "it resumes after the build's last commit");
    assertEquals(V2, mbean("lineage-task", "BuildingReplicaVersion"));
    done = log.size();
    log.copy("a", 11, 10, true).copy("b", 1, 6, true).insert("b", 7);
    again.put(from(built + 1, log.records()));
    assertTrue(Files.isSymbolicLink(path));
    assertEquals(V2, version(path), "swapped in once every table is copied");
    assertEquals(ReplicaFiles.sent(1, 20), ReplicaFiles.rows(path, "a"), "the new lineage as it was sent");
    assertEquals(ReplicaFiles.sent(1, 7), ReplicaFiles.rows(path, "b"));
    assertEquals(V2, mbean("lineage-task", "ReplicaVersion"));
    assertEquals("", mbean("lineage-task", "BuildingReplicaVersion"));
    assertFalse(((String) mbean("lineage-task", "LastLineageSwap")).isEmpty());
    assertEquals(log.records().get(log.size() - 1).offset() + 1, committedOffset(again));
  }

  /** A replica of V1 whose last commit is at offset 500 of the topic. */
  private LineageLog atOffset500(Pg2liteSinkTask task) {
    LineageLog log = new LineageLog().firstStart(V1, "a").skipOffsets(490).copy("a", 1, 3, true).insert("a", 4);
    task.put(sink(log.records()));
    assertEquals(501, committedOffset(task));
    return log;
  }

  @Test
  void aTopicCreatedAgainIsFollowedFromItsFirstRecordAtOffsetZero() throws Exception {
    Path path = dir.resolve("replica.db");
    Pg2liteSinkTask task = start("recreated-topic-reset");
    LineageLog log = atOffset500(task);

    int done = log.size();
    log.recreateTopic().newLineage(V2, REASON, "a").copy("a", 1, 8, true);
    context.offsets.clear();
    task.put(sink(log.from(done))); // 501 is past the new topic's end: the consumer resets to its start
    assertEquals(null, context.offsets.get(TP), "no seek needed: the begin came first");
    assertEquals(V2, version(path), "a lineage begin at offset 0 is not mistaken for a record taken before");
    assertEquals(range(1, 8), ids(path, "a"));
    assertEquals(8, committedOffset(task));
  }

  @Test
  void aTopicCreatedAgainWhoseNewLineageTheConsumerJoinedPastItsBeginIsReadFromItsStart() throws Exception {
    Path path = dir.resolve("replica.db");
    Pg2liteSinkTask task = start("recreated-topic");
    LineageLog log = atOffset500(task);
    long replicaOffset = 500;

    int done = log.size();
    log.recreateTopic().newLineage(V2, REASON, "a").skipOffsets(600).copy("a", 1, 8, true).insert("a", 9);
    List<ChangeLogRecord> newTopic = log.from(done);
    context.offsets.clear();
    task.put(from(replicaOffset + 1, newTopic)); // the consumer's position 501 is inside the new topic
    assertEquals(0L, context.offsets.get(TP), "sent back to the start of the topic for the new lineage's begin");
    assertEquals(V1, version(path));

    task.put(from(0, newTopic)); // what the seek delivers
    assertEquals(V2, version(path));
    assertEquals(ReplicaFiles.sent(1, 9), ReplicaFiles.rows(path, "a"));
    assertEquals(newTopic.get(newTopic.size() - 1).offset() + 1, committedOffset(task));
  }

  /**
   * Records the replica needs were deleted (retention) while it was behind; with resync.auto the
   * task does not fail: the replica stays as it is, the group's offset asks for a new lineage, the
   * rest of the old lineage is passed over, and the new lineage's begin builds a replica that is
   * swapped in. Without resync.auto the same gap stops the task (LogContinuity).
   */
  @Test
  void aReplicaWhoseRecordsWereDeletedWaitsForANewLineageWithResyncAuto() throws Exception {
    Path path = dir.resolve("replica.db");
    Pg2liteSinkTask task = start("stranded", Map.of("resync.auto", "true"));
    LineageLog log = new LineageLog().firstStart(V1, "a").copy("a", 1, 3, true).insert("a", 4);
    task.put(sink(log.records()));
    long needs = committedOffset(task);

    int done = log.size();
    log.insert("a", 5).insert("a", 6).insert("a", 7);
    List<ChangeLogRecord> after = log.from(done);
    List<ChangeLogRecord> retained = after.subList(after.size() / 2, after.size()); // insert 5 deleted by retention
    task.put(sink(retained));
    assertEquals(range(1, 4), ids(path, "a"), "nothing after the gap is applied; the replica stays readable");
    OffsetAndMetadata asked = task.preCommit(Map.of()).get(TP);
    assertEquals(needs, asked.offset(), "the group's offset stays where the replica is");
    assertEquals(new io.pg2lite.connect.kafka.StrandedReplica(V1, needs).metadata(), asked.metadata(),
        "and asks for a new lineage");
    assertTrue((Long) mbean("stranded", "StrandedSince") > 0);

    done = log.size();
    log.insert("a", 8).newLineage(V2, REASON, "a").copy("a", 1, 9, true);
    task.put(sink(log.from(done)));
    assertEquals(V2, version(path), "the new lineage is built and swapped in");
    assertEquals(range(1, 9), ids(path, "a"));
    assertEquals(-1L, mbean("stranded", "StrandedSince"));
    OffsetAndMetadata after2 = task.preCommit(Map.of()).get(TP);
    assertEquals("", after2.metadata(), "no mark once the replica follows again");
    assertEquals(log.records().get(log.size() - 1).offset() + 1, after2.offset());
  }

  @Test
  void withoutResyncAutoTheSameGapStopsTheTask() {
    Pg2liteSinkTask task = start("gap-fails");
    LineageLog log = new LineageLog().firstStart(V1, "a").copy("a", 1, 3, true).insert("a", 4);
    task.put(sink(log.records()));
    int done = log.size();
    log.insert("a", 5).insert("a", 6);
    List<ChangeLogRecord> after = log.from(done);
    RuntimeException gap = org.junit.jupiter.api.Assertions.assertThrows(RuntimeException.class,
        () -> task.put(sink(after.subList(after.size() / 2, after.size()))));
    assertTrue(gap.getMessage().contains("replica too far behind"), gap.getMessage());
  }
}
