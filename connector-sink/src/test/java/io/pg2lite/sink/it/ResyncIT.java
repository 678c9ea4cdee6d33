package io.pg2lite.sink.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pg2lite.testkit.TestStack;
import io.pg2lite.testkit.TestStackExtension;
import io.pg2lite.testkit.postgres.PostgresServer;
import io.pg2lite.testkit.sqlite.SqliteFiles;
import io.pg2lite.testkit.support.Await;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Issue 35: the source starts a new lineage by itself ({@code resync.auto}) and the sink builds the
 * new replica beside the old one, swapping it in once it is whole, while a reader queries the
 * replica every 10 ms and never sees an error, an empty table or a mix of lineages. The rows are
 * 'old' in the old lineage and 'new' in the new one (updated while no slot existed), so a mix is
 * visible in one query.
 */
@ExtendWith(TestStackExtension.class)
class ResyncIT {
  private static final Duration WAIT = Duration.ofSeconds(120);
  /** Enough rows that the copy of the new lineage takes a while, with the reader reading all along. */
  private static final int ROWS = 30_000;

  @Test
  void aSlotDroppedByHandIsReplacedAndTheReplicaSwappedUnderAReader(TestStack stack) throws Exception {
    try (Pipeline p = new Pipeline(stack, "resync_drop")) {
      Path store = Files.createTempDirectory("pg2lite-resync-snapshots");
      Path replica = prepare(p, Map.of("snapshot.dir", store.toString(), "snapshot.interval.ms", "1000",
          "snapshot.keep", "3"));
      String before = version(replica);
      Await.until("a snapshot of the first lineage", WAIT, () -> snapshotsOf(store, before) > 0);
      try (LineageReader reader = new LineageReader(replica)) {
        Await.until("the reader reading", WAIT, () -> reader.reads.get() > 20);
        dropSlotUnderTheSource(p);
        p.db.execute("UPDATE t SET v = 'new'"); // no slot, or a new one: never in the old lineage
        p.awaitReplicaEqualsPostgres(replica, "resync_drop_pub", "the new lineage swapped in");
        Await.until("the reader saw the new lineage", WAIT, () -> reader.versions.size() == 2);
        reader.assertClean(before);
      }
      assertTrue(!version(replica).equals(before), "the replica is of a new replica version");
      assertTrue(Files.isSymbolicLink(replica), "replica.path now links to the new lineage's file");
      Await.until("the first lineage's snapshots retired", WAIT, () -> snapshotsOf(store, before) == 0);
      p.db.execute("INSERT INTO t VALUES (" + (ROWS + 1) + ", 'after')");
      p.awaitReplicaEqualsPostgres(replica, "resync_drop_pub", "a row after the swap, streamed");
    }
  }

  /**
   * The case the issue saw: Postgres 15-style managed limits invalidate the slot of a paused
   * source; with resync.auto the pipeline heals without a person and the replica ends equal.
   */
  @Test
  void aSlotInvalidatedByMaxSlotWalKeepSizeResyncsAndTheReplicaEqualsPostgres(TestStack stack) throws Exception {
    try (PostgresServer server = PostgresServer.startDedicated(); Pipeline p = new Pipeline(stack, "resync_wal", server)) {
      Path replica = prepare(p, Map.of());
      String before = version(replica);
      try (LineageReader reader = new LineageReader(replica)) {
        p.worker.rest().pause(p.name + "-source");
        p.db.execute("ALTER SYSTEM SET max_slot_wal_keep_size = '1MB'", "SELECT pg_reload_conf()",
            "CREATE TABLE filler (x text)");
        Await.until("Postgres invalidated the slot", WAIT, () -> {
          try {
            p.db.execute("INSERT INTO filler SELECT repeat(md5(g::text), 64) FROM generate_series(1, 4000) g",
                "SELECT pg_switch_wal()", "CHECKPOINT");
            return p.db.queryColumn("SELECT wal_status FROM pg_replication_slots WHERE slot_name = 'resync_wal_slot'")
                .equals(List.of("lost"));
          } catch (SQLException e) {
            throw new IllegalStateException(e);
          }
        });
        // After the walsender ended with the slot: the paused task could not have read it.
        p.db.execute("UPDATE t SET v = 'new'");
        p.worker.rest().resume(p.name + "-source");
        p.awaitReplicaEqualsPostgres(replica, "resync_wal_pub", "after the resync");
        Await.until("the reader saw the new lineage", WAIT, () -> reader.versions.size() == 2);
        reader.assertClean(before);
      }
      assertTrue(p.worker.rest().status(p.name + "-source").isRunning(), "no person was needed");
    }
  }

  /** The topic deleted under a stopped source and a running sink: both follow the new lineage. */
  @Test
  void aDeletedTopicGetsANewLineageThatTheSinkFollows(TestStack stack) throws Exception {
    try (Pipeline p = new Pipeline(stack, "resync_topic")) {
      Path replica = prepare(p, Map.of());
      String before = version(replica);
      String source = p.name + "-source";
      p.worker.rest().stop(source);
      p.worker.rest().awaitStopped(source, WAIT);
      p.db.execute("UPDATE t SET v = 'new'");
      stack.kafka().admin().deleteTopics(List.of(p.topic)).all().get();
      Await.until("topic deleted", WAIT, () -> {
        try {
          return !stack.kafka().admin().listTopics().names().get().contains(p.topic);
        } catch (Exception e) {
          throw new IllegalStateException(e);
        }
      });
      p.worker.rest().resume(source);
      p.awaitReplicaEqualsPostgres(replica, "resync_topic_pub", "the new topic's lineage");
      assertTrue(!version(replica).equals(before), "a new replica version");
    }
  }

  /**
   * Records a paused sink still needs are deleted from the topic ({@code kafka-delete-records},
   * as a retention shorter than the pause would): with resync.auto on both connectors the sink
   * waits instead of failing, its group's offset asks for a new lineage, the source starts one,
   * and the replica is rebuilt and swapped in under a reader, with no person and no REST call
   * but the pause and the resume.
   */
  @Test
  void recordsDeletedPastAPausedSinkGetANewLineageWithoutAPerson(TestStack stack) throws Exception {
    try (Pipeline p = new Pipeline(stack, "resync_gone")) {
      Path replica = prepare(p, Map.of("resync.auto", "true"), Map.of("resync.check.interval.ms", "1000"));
      String before = version(replica);
      String sink = p.name + "-sink-a";
      org.apache.kafka.common.TopicPartition tp = new org.apache.kafka.common.TopicPartition(p.topic, 0);
      try (LineageReader reader = new LineageReader(replica)) {
        Await.until("the reader reading", WAIT, () -> reader.reads.get() > 20);
        p.worker.rest().pause(sink);
        long end = endOffset(stack, tp);
        p.db.execute("UPDATE t SET v = 'new'");
        Await.until("the update in the change log", WAIT, () -> endOffset(stack, tp) >= end + ROWS);
        long deletedTo = endOffset(stack, tp);
        stack.kafka().admin().deleteRecords(Map.of(tp, org.apache.kafka.clients.admin.RecordsToDelete
            .beforeOffset(deletedTo))).all().get();
        p.db.execute("INSERT INTO u VALUES (51, 'after the deletion')"); // a record past the gap
        p.worker.rest().resume(sink);
        Await.until("the sink waiting for a new lineage, or already past it", WAIT,
            () -> Pipeline.sinkMetric(sink, "StrandedSince") > 0 || !before.equals(versionOrNull(replica)));
        assertTrue(p.worker.rest().status(sink).isRunning(), "the sink waits, RUNNING, instead of failing");
        p.awaitReplicaEqualsPostgres(replica, "resync_gone_pub", "the new lineage swapped in");
        Await.until("the reader saw the new lineage", WAIT, () -> reader.versions.size() == 2);
        reader.assertClean(before);
      }
      assertEquals(-1L, Pipeline.sinkMetric(sink, "StrandedSince"));
      assertTrue(p.worker.rest().status(p.name + "-source").isRunning(), "no person was needed");
      p.db.execute("INSERT INTO t VALUES (" + (ROWS + 1) + ", 'new')");
      p.awaitReplicaEqualsPostgres(replica, "resync_gone_pub", "a row after the swap, streamed");
    }
  }

  private static long endOffset(TestStack stack, org.apache.kafka.common.TopicPartition tp) {
    try {
      return stack.kafka().admin().listOffsets(Map.of(tp, org.apache.kafka.clients.admin.OffsetSpec.latest())).all()
          .get().get(tp).offset();
    } catch (Exception e) {
      throw new IllegalStateException(e);
    }
  }

  private static String versionOrNull(Path replica) {
    try {
      return version(replica);
    } catch (SQLException | RuntimeException e) {
      return null;
    }
  }

  private static Path prepare(Pipeline p, Map<String, String> sinkChanges) throws Exception {
    return prepare(p, sinkChanges, Map.of());
  }

  /** A published table of ROWS 'old' rows and a second one; the source with resync.auto; a sink. */
  private static Path prepare(Pipeline p, Map<String, String> sinkChanges, Map<String, String> sourceChanges)
      throws Exception {
    p.db.execute("CREATE TABLE t (id bigint PRIMARY KEY, v text NOT NULL)",
        "CREATE TABLE u (id bigint PRIMARY KEY, w text)",
        "INSERT INTO t SELECT g, 'old' FROM generate_series(1, " + ROWS + ") g",
        "INSERT INTO u SELECT g, md5(g::text) FROM generate_series(1, 50) g",
        "CREATE PUBLICATION " + p.name + "_pub FOR TABLE t, u");
    Map<String, String> source = new java.util.HashMap<>(sourceChanges);
    source.put("resync.auto", "true");
    p.startSource(source);
    Path replica = p.files.newFile("replica");
    p.startSink("a", replica, sinkChanges);
    p.awaitReplicaEqualsPostgres(replica, p.name + "_pub", "the first lineage");
    return replica;
  }

  private static String version(Path replica) throws SQLException {
    return Pipeline.replica(replica, "SELECT replica_version FROM \"_pg2lite.state\"").get(0).get(0);
  }

  /** Snapshot files in {@code store} that name {@code version}. */
  private static long snapshotsOf(Path store, String version) {
    try (Stream<Path> files = Files.walk(store)) {
      return files.filter(Files::isRegularFile).filter(f -> f.getFileName().toString().endsWith(".json"))
          .filter(f -> {
            try {
              return Files.readString(f).contains(version);
            } catch (java.io.IOException e) {
              return false; // deleted meanwhile
            }
          }).count();
    } catch (java.io.IOException e) {
      throw new java.io.UncheckedIOException(e);
    }
  }

  private static void dropSlotUnderTheSource(Pipeline p) {
    String slot = p.name + "_slot";
    Await.until("slot " + slot + " dropped", WAIT, () -> {
      try {
        p.db.dropSlot(slot); // terminates the walsender first
        return true;
      } catch (SQLException e) {
        if ("55006".equals(e.getSQLState())) {
          return false; // the source took the slot back meanwhile: again
        }
        throw new IllegalStateException(e);
      }
    });
  }

  /**
   * Opens the replica path every 10 ms, as an application reader does, and reads in one
   * transaction the replica version and the rows' lineage markers: 'old' rows belong with the
   * first version, 'new' rows with the next.
   */
  private static final class LineageReader implements AutoCloseable {
    final AtomicInteger reads = new AtomicInteger();
    final Set<String> versions = ConcurrentHashMap.newKeySet();
    final List<String> problems = java.util.Collections.synchronizedList(new ArrayList<>());
    private final AtomicReference<Boolean> running = new AtomicReference<>(true);
    private final Thread thread;
    private String first;

    LineageReader(Path replica) {
      thread = new Thread(() -> {
        while (running.get()) {
          try (Connection c = SqliteFiles.open(replica)) {
            c.setAutoCommit(false);
            try (Statement s = c.createStatement()) {
              String version = single(s, "SELECT replica_version FROM \"_pg2lite.state\"");
              try (ResultSet rs = s.executeQuery("SELECT count(*), sum(v = 'old'), sum(v = 'new') FROM t")) {
                rs.next();
                check(version, rs.getLong(1), rs.getLong(2), rs.getLong(3), single(s, "SELECT count(*) FROM u"));
              }
            }
            c.rollback();
          } catch (SQLException | RuntimeException e) {
            problems.add("read failed: " + e);
          }
          reads.incrementAndGet();
          try {
            Thread.sleep(10);
          } catch (InterruptedException e) {
            return;
          }
        }
      }, "lineage-reader");
      thread.start();
    }

    private void check(String version, long rows, long old, long fresh, String uRows) {
      if (first == null) {
        first = version;
      }
      versions.add(version);
      if (rows == 0 || "0".equals(uRows)) {
        problems.add("an empty table at version " + version + " (t " + rows + ", u " + uRows + ")");
      } else if (old > 0 && fresh > 0 || version.equals(first) && fresh > 0 || !version.equals(first) && old > 0) {
        problems.add("a mix of lineages at version " + version + ": " + old + " old rows, " + fresh + " new rows");
      }
    }

    private static String single(Statement s, String sql) throws SQLException {
      try (ResultSet rs = s.executeQuery(sql)) {
        rs.next();
        return rs.getString(1);
      }
    }

    void assertClean(String firstVersion) {
      System.out.println("ResyncIT reader: " + reads.get() + " reads, versions " + versions + ", " + problems.size()
          + " problems");
      assertEquals(firstVersion, first, "the reader began on the first lineage");
      assertTrue(problems.isEmpty(), reads.get() + " reads; " + problems.size() + " problems, the first: "
          + problems.subList(0, Math.min(5, problems.size())));
    }

    @Override
    public void close() throws InterruptedException {
      running.set(false);
      thread.join(10_000);
    }
  }
}
