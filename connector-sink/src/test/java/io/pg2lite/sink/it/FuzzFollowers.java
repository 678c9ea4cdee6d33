package io.pg2lite.sink.it;

import io.pg2lite.follower.Follower;
import io.pg2lite.testkit.fuzz.ReplicaComparator;
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
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Supplier;

/**
 * The randomized differential test's followers (FuzzFeature.FOLLOWERS): follower "f0" follows the
 * change log from its start and is stopped and started again whenever the sink restarts (resume
 * by offset, as after a crash); each worker restart, with a snapshot store, starts one more
 * follower on an empty file, which restores the sink's newest snapshot in the middle of the
 * workload (at most {@value #MAX_RESTORED}). At the end each must reach the sink's watermark and
 * equal Postgres cell by cell.
 */
final class FuzzFollowers implements AutoCloseable {
  private static final int MAX_RESTORED = 2;
  private final Map<String, String> base;
  private final SqliteFiles files;
  private final Path snapshots;
  private final Map<String, Path> replicas = new LinkedHashMap<>();
  private final Map<String, Follower> running = new HashMap<>();
  private final List<String> events = new ArrayList<>();

  /** @param snapshots the sink's snapshot directory; null without snapshots */
  FuzzFollowers(String bootstrapServers, String topic, SqliteFiles files, Path snapshots, boolean resyncAuto) {
    this.files = files;
    this.snapshots = snapshots;
    this.base = Map.of("topic", topic, "kafka.bootstrap.servers", bootstrapServers, "resync.auto",
        String.valueOf(resyncAuto), "offset.commit.interval.ms", "500");
  }

  /** Starts f0, which replays the log from its start. */
  void startReplaying() throws InterruptedException {
    start("f0", false);
  }

  /** A sink restart also restarts f0; a worker restart (which loses the sink's file) adds a restoring follower. */
  void restarted(String kind) {
    try {
      if (kind.equals("SINK") && running.containsKey("f0")) {
        running.remove("f0").close();
        start("f0", false);
        events.add("f0 restarted");
      } else if (kind.equals("WORKER") && snapshots != null && replicas.size() <= MAX_RESTORED) {
        String name = "r" + replicas.size();
        Follower f = start(name, true);
        events.add(name + (f.restoredFrom().isPresent() ? " restored offset " + f.restoredFrom().getAsLong()
            : " found no snapshot and replays"));
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
  }

  private Follower start(String name, boolean restore) throws InterruptedException {
    Path replica = replicas.computeIfAbsent(name, n -> files.newFile("follower-" + n));
    Map<String, String> s = new HashMap<>(base);
    s.put("replica.path", replica.toString());
    s.put("name", "fuzz-" + replica.getFileName());
    if (restore) {
      s.put("snapshot.dir", snapshots.toString());
    }
    Follower f = Follower.start(s);
    running.put(name, f);
    return f;
  }

  /**
   * Waits until every follower has applied the sink's watermark and finished its backfills, then
   * compares each with Postgres; returns the differences found, one message per follower that
   * differs (empty when all are equal).
   */
  List<String> awaitAndCompare(String watermark, Duration timeout, Supplier<Connection> postgres, String publication)
      throws Exception {
    List<String> out = new ArrayList<>();
    for (Map.Entry<String, Follower> e : running.entrySet()) {
      Follower f = e.getValue();
      Path replica = replicas.get(e.getKey());
      if (!f.awaitWatermark(watermark, timeout)) {
        out.add("follower " + e.getKey() + " did not reach watermark " + watermark + " (at " + f.position() + ")");
        continue;
      }
      Await.until("follower " + e.getKey() + " to finish its backfills", timeout, () -> pendingBackfills(replica) == 0);
      try (Connection pg = postgres.get(); Connection lite = SqliteFiles.open(replica)) {
        ReplicaComparator.Result r = new ReplicaComparator(5).compare(pg, publication, lite);
        if (!r.same()) {
          out.add("follower " + e.getKey() + " (" + replica + ") differs from Postgres: " + r.total()
              + " differences, first: " + r.differences());
        }
      }
    }
    return out;
  }

  private static long pendingBackfills(Path replica) {
    try (Connection c = SqliteFiles.open(replica); Statement s = c.createStatement();
        ResultSet rs = s.executeQuery("SELECT count(*) FROM \"_pg2lite.columns\" WHERE backfill IS NOT NULL")) {
      return rs.next() ? rs.getLong(1) : 0;
    } catch (SQLException e) {
      return 1; // not readable yet
    }
  }

  /** What happened to the followers, for the run's summary line. */
  String summary() {
    return replicas.size() + " followers" + (events.isEmpty() ? "" : " (" + String.join(", ", events) + ")");
  }

  @Override
  public void close() {
    running.values().forEach(Follower::close);
  }
}
