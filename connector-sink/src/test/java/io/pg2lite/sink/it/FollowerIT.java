package io.pg2lite.sink.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pg2lite.follower.Follower;
import io.pg2lite.replica.follow.ReplicaWriterLock;
import io.pg2lite.testkit.TestStack;
import io.pg2lite.testkit.TestStackExtension;
import io.pg2lite.testkit.s3.S3ProxyProcess;
import io.pg2lite.testkit.support.Await;
import io.pg2lite.testkit.workload.Ledger;
import java.io.File;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Replica followers (issue 25) beside a sink on one pipeline: the follower library replays the log
 * from its start; a second follower restores the sink's newest snapshot from an object store (S3Proxy,
 * a real S3 API server, in a child JVM) and catches up; a wrong bucket is named at start; both end
 * equal to Postgres with nothing lost or twice; a third on a file already followed is refused; the
 * follower program killed by SIGKILL in the middle of large transactions resumes with nothing lost
 * or twice, and a second program on its file refuses to start.
 */
@ExtendWith(TestStackExtension.class)
class FollowerIT {
  @Test
  void followersReplayOrRestoreFromTheSinksSnapshotsInAnObjectStoreAndEqualPostgres(TestStack stack)
      throws Exception {
    try (Pipeline p = new Pipeline(stack, "follow_lib"); S3ProxyProcess s3 = S3ProxyProcess.start()) {
      p.db.execute(Ledger.CREATE, "CREATE PUBLICATION follow_lib_pub FOR TABLE acct");
      Ledger ledger = new Ledger(p.db, 25);
      p.startSource();
      s3.createBucket("pg2lite-snapshots");
      Map<String, String> store = new HashMap<>(s3.storeSettings("pg2lite-snapshots"));
      store.put("snapshot.s3.prefix", "replicas/");
      Path sinkReplica = p.files.newFile("sink");
      Map<String, String> sink = new HashMap<>(store);
      sink.put("snapshot.interval.ms", "1000");
      p.startSink("a", sinkReplica, sink);
      ledger.write(150, null);

      Map<String, String> wrongBucket = new HashMap<>(store);
      wrongBucket.put("snapshot.s3.bucket", "no-such-bucket");
      IllegalArgumentException bad = assertThrows(IllegalArgumentException.class,
          () -> Follower.start(settings(stack, p, p.files.newFile("bad"), wrongBucket)));
      assertTrue(bad.getMessage().contains("snapshot.s3.bucket") && bad.getMessage().contains("no-such-bucket"),
          bad.getMessage());

      Path replayed = p.files.newFile("replay");
      AtomicLong commits = new AtomicLong();
      try (Follower first = Follower.start(settings(stack, p, replayed, Map.of()))) {
        first.addListener(pos -> commits.incrementAndGet());
        assertTrue(first.restoredFrom().isEmpty(), "no store: the first follower replays the log");
        p.awaitSame(replayed, Ledger.PG_ROWS, Ledger.LITE_ROWS, Pipeline.WAIT);
        p.awaitSame(sinkReplica, Ledger.PG_ROWS, Ledger.LITE_ROWS, Pipeline.WAIT);
        long applied = Long.parseLong(Pipeline.replicaOffset(sinkReplica));
        Path restored = p.files.newFile("restored");
        // The sink publishes a snapshot of its caught-up replica within its interval; the follower
        // takes the newest there is when it starts, so start it again until it is that one.
        Follower second = Await.value("a follower restored from a snapshot of the caught-up sink", Pipeline.WAIT,
            () -> restoredAtLeast(settings(stack, p, restored, store), applied));
        try (second) {
          assertTrue(io.pg2lite.replica.snapshot.SnapshotOrigin.of(restored).isPresent(), "its origin is kept");
          ledger.write(60, null);
          p.awaitSame(restored, Ledger.PG_ROWS, Ledger.LITE_ROWS, Pipeline.WAIT);
          p.awaitSame(replayed, Ledger.PG_ROWS, Ledger.LITE_ROWS, Pipeline.WAIT);
          assertTrue(second.awaitWatermark(first.position().watermark(), Duration.ofSeconds(30)),
              "reading one's own writes: the second replica reaches the first's watermark");
          assertFalse(second.awaitWatermark(io.pg2lite.protocol.watermark.Watermark.parse(
              second.position().watermark()).nextMajor().toString(), Duration.ofMillis(300)),
              "a watermark not reached yet times out");
          for (Path replica : List.of(replayed, restored)) {
            Ledger.Audit audit = ledger.audit(replica);
            assertEquals(0, audit.lost(), replica + ": " + audit);
            assertEquals(0, audit.twice(), replica + ": " + audit);
          }
          assertTrue(commits.get() > 0, "the commit listener was told");

          ReplicaWriterLock.InUse refused = assertThrows(ReplicaWriterLock.InUse.class,
              () -> Follower.start(settings(stack, p, restored, Map.of("name", "intruder"))));
          assertTrue(refused.getMessage().contains(restored.toAbsolutePath().toString())
              && refused.getMessage().contains("follower " + second.config().name), refused.getMessage());
        }
      }
    }
  }

  @Test
  void theFollowerProgramKilledMidTransactionResumesWithNothingLostOrTwice(TestStack stack) throws Exception {
    try (Pipeline p = new Pipeline(stack, "follow_kill")) {
      p.db.execute(Ledger.CREATE, "CREATE PUBLICATION follow_kill_pub FOR TABLE acct");
      Ledger ledger = new Ledger(p.db, 26);
      p.startSource();
      ledger.write(50, null);
      for (int i = 0; i < 5; i++) {
        ledger.writeLarge(10_000);
        ledger.write(30, null); // a poll ending between these commits what came before (no open transaction)
      }
      org.apache.kafka.common.TopicPartition tp = new org.apache.kafka.common.TopicPartition(p.topic, 0);
      Await.until("the source wrote all of it", Pipeline.WAIT, () -> logEnd(stack, tp) > 5 * 10_000);
      Path replica = p.files.newFile("killed");
      Path log = Files.createTempFile("pg2lite-follower", ".log");
      // Small polls: a large transaction spans thousands of them, applied but not committed until its end.
      Process follower = program(stack, p, replica, log, "kafka.max.poll.records=10");
      // Kill it while it applies the large transactions: the first is in, the one under way is not.
      long deadline = System.nanoTime() + Pipeline.WAIT.toNanos();
      List<Long> seen = new ArrayList<>();
      while ((seen.isEmpty() || seen.get(seen.size() - 1) < 10_000) && System.nanoTime() < deadline) {
        seen.add(offset(replica));
        Thread.sleep(5);
      }
      follower.destroyForcibly().waitFor(); // SIGKILL
      long at = offset(replica);
      long end = logEnd(stack, tp);
      assertTrue(at < end - 100, "killed before the end of the log: at " + at + " of " + end + " (offsets seen "
          + seen.stream().distinct().toList() + ")");

      ledger.write(40, null);
      Process again = program(stack, p, replica, log);
      try {
        Await.until("the restarted follower holds the replica", Pipeline.WAIT, () -> read(log)
            .split("Following ", -1).length > 2);
        Path intruderLog = Files.createTempFile("pg2lite-intruder", ".log");
        Process intruder = program(stack, p, replica, intruderLog);
        assertTrue(intruder.waitFor(60, TimeUnit.SECONDS), "a second program on the same file exits");
        String said = Files.readString(intruderLog, StandardCharsets.UTF_8);
        assertEquals(1, intruder.exitValue(), said);
        assertTrue(said.contains("already has a writer") && said.contains(replica.toAbsolutePath().toString()), said);
        p.awaitSame(replica, Ledger.PG_ROWS, Ledger.LITE_ROWS, Pipeline.WAIT);
        Ledger.Audit audit = ledger.audit(replica);
        assertEquals(0, audit.lost(), audit.toString());
        assertEquals(0, audit.twice(), audit.toString());
        assertTrue(offset(replica) > at);
      } finally {
        again.destroy(); // SIGTERM: the shutdown hook stops it cleanly
        assertTrue(again.waitFor(60, TimeUnit.SECONDS));
      }
      String output = Files.readString(log, StandardCharsets.UTF_8);
      assertEquals(143, again.exitValue(), output); // SIGTERM's status, after the clean stop below
      assertTrue(output.contains("Stopped cleanly: replica at watermark"), output);
    }
  }

  /** A follower started on a missing replica, when it restored a snapshot at {@code offset} or later; null otherwise. */
  private static Follower restoredAtLeast(Map<String, String> settings, long offset) {
    try {
      Follower f = Follower.start(settings);
      if (f.restoredFrom().orElse(-1) >= offset) {
        return f;
      }
      f.close();
      for (String suffix : new String[] {"", "-wal", "-shm", ".snapshot.json"}) {
        Files.deleteIfExists(Path.of(settings.get("replica.path") + suffix));
      }
      return null;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    } catch (java.io.IOException e) {
      throw new java.io.UncheckedIOException(e);
    }
  }

  private static String read(Path file) {
    try {
      return Files.readString(file, StandardCharsets.UTF_8);
    } catch (java.io.IOException e) {
      throw new java.io.UncheckedIOException(e);
    }
  }

  @Test
  void tenFollowersFanOutAndEachEqualsPostgresAndAReplicaOfAnotherTopicIsRefused(TestStack stack)
      throws Exception {
    try (Pipeline p = new Pipeline(stack, "follow_ten")) {
      p.db.execute(Ledger.CREATE, "CREATE PUBLICATION follow_ten_pub FOR TABLE acct");
      Ledger ledger = new Ledger(p.db, 27);
      p.startSource();
      List<Follower> followers = new ArrayList<>();
      List<Path> replicas = new ArrayList<>();
      try {
        for (int i = 0; i < 10; i++) {
          replicas.add(p.files.newFile("fan" + i));
          followers.add(Follower.start(settings(stack, p, replicas.get(i), Map.of("name", "fan" + i))));
        }
        ledger.write(200, null);
        for (Path replica : replicas) {
          p.awaitSame(replica, Ledger.PG_ROWS, Ledger.LITE_ROWS, Pipeline.WAIT);
          Ledger.Audit audit = ledger.audit(replica);
          assertEquals(0, audit.lost() + audit.twice(), replica + ": " + audit);
        }
        followers.forEach(f -> assertEquals(Follower.State.FOLLOWING, f.state()));
        javax.management.ObjectName mbean = new javax.management.ObjectName("io.pg2lite:type=follower,name="
            + javax.management.ObjectName.quote("fan3"));
        var jmx = java.lang.management.ManagementFactory.getPlatformMBeanServer();
        assertEquals("FOLLOWING", jmx.getAttribute(mbean, "State"));
        assertEquals(followers.get(3).position().watermark(), jmx.getAttribute(mbean, "Watermark"));
        assertEquals(-1L, jmx.getAttribute(mbean, "SnapshotFailingSince"));
      } finally {
        followers.forEach(Follower::close);
      }

      Map<String, String> missing = settings(stack, p, p.files.newFile("missing"), Map.of());
      missing.put("topic", "no_such_topic");
      IllegalStateException noTopic = assertThrows(IllegalStateException.class, () -> Follower.start(missing));
      assertTrue(noTopic.getMessage().contains("topic = no_such_topic") && noTopic.getMessage().contains(
          "does not exist"), noTopic.getMessage());

      String other = stack.kafka().uniqueTopicName("follow_other");
      stack.kafka().admin().createTopics(List.of(new org.apache.kafka.clients.admin.NewTopic(other, 1, (short) 1)))
          .all().get();
      Map<String, String> elsewhere = settings(stack, p, replicas.get(0), Map.of("name", "fan0"));
      elsewhere.put("topic", other);
      try (Follower wrong = Follower.start(elsewhere)) {
        Await.until("the follower on another topic's replica to fail", Pipeline.WAIT,
            () -> wrong.state() == Follower.State.FAILED);
        String why = wrong.failure().map(Throwable::getMessage).orElse("");
        assertTrue(why.contains(p.topic + "-0") && why.contains(other + "-0"), why);
      }
    }
  }

  private static long logEnd(TestStack stack, org.apache.kafka.common.TopicPartition tp) {
    try {
      return stack.kafka().admin().listOffsets(Map.of(tp, org.apache.kafka.clients.admin.OffsetSpec.latest())).all()
          .get().get(tp).offset();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    } catch (java.util.concurrent.ExecutionException e) {
      throw new IllegalStateException(e);
    }
  }

  private static long offset(Path replica) {
    try {
      return Files.exists(replica) ? Long.parseLong(Pipeline.replicaOffset(replica)) : -1;
    } catch (RuntimeException e) {
      return -1; // not a replica yet, or nothing applied
    }
  }

  /** A follower's settings for the pipeline's topic and {@code replica}, with {@code extra}. */
  static Map<String, String> settings(TestStack stack, Pipeline p, Path replica, Map<String, String> extra) {
    Map<String, String> s = new HashMap<>();
    s.put("topic", p.topic);
    s.put("kafka.bootstrap.servers", stack.kafka().bootstrapServers());
    s.put("replica.path", replica.toString());
    s.put("offset.commit.interval.ms", "500");
    s.putAll(extra);
    return s;
  }

  /** The follower program in a JVM of its own, on this test's class path. */
  private static Process program(TestStack stack, Pipeline p, Path replica, Path log, String... flags)
      throws Exception {
    List<String> cmd = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
        "-Xmx256m", "-cp", System.getProperty("java.class.path"), "io.pg2lite.follower.cli.FollowerMain", "follow"));
    settings(stack, p, replica, Map.of()).forEach((k, v) -> cmd.add(k + "=" + v));
    cmd.addAll(List.of(flags));
    return new ProcessBuilder(cmd).redirectErrorStream(true).redirectOutput(ProcessBuilder.Redirect.appendTo(
        log.toFile())).directory(new File(".")).start();
  }
}
