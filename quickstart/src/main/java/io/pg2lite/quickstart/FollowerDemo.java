package io.pg2lite.quickstart;

import io.pg2lite.follower.Follower;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;

/**
 * The quickstart's followers ({@code -Dpg2lite.quickstart.followers=true}): two replica followers
 * start beside the sink and replay the change log from its start; once the sink has published a
 * snapshot, a third starts on an empty directory, restores that snapshot and catches up. Each
 * prints its watermark and lag as the demo runs, and at the end each replica is compared with
 * Postgres like the sink's. The followers run in the demo's JVM through the library
 * ({@link Follower}), as an application embedding one would.
 */
final class FollowerDemo implements AutoCloseable {
  /** How often the sink publishes a snapshot in the demo (the default is an hour). */
  static final String SNAPSHOT_INTERVAL_MS = "5000";
  private final String bootstrapServers;
  private final String topic;
  private final Path dir;
  private final Path snapshots;
  private final PrintStream out;
  private final Map<String, Follower> running = new LinkedHashMap<>();

  FollowerDemo(String bootstrapServers, String topic, Path work, PrintStream out) throws IOException {
    this.bootstrapServers = bootstrapServers;
    this.topic = topic;
    this.dir = Files.createDirectories(work.resolve("followers"));
    this.snapshots = Files.createDirectories(work.resolve("snapshots"));
    this.out = out;
  }

  /** What the sink's config gains: the snapshot store the third follower restores from. */
  Map<String, String> sinkSettings() {
    return Map.of("snapshot.dir", snapshots.toString(), "snapshot.interval.ms", SNAPSHOT_INTERVAL_MS);
  }

  /** Starts the two followers that replay the log from its start. */
  void startReplaying() throws InterruptedException {
    for (String name : List.of("a", "b")) {
      start(name, Map.of());
    }
  }

  /**
   * Starts the third follower, restoring from the sink's snapshots, once there is one; returns
   * whether it has started (false: no snapshot yet, try again at the next tick).
   */
  boolean startRestoringIfSnapshot() throws InterruptedException, IOException {
    if (running.containsKey("c")) {
      return true;
    }
    try (Stream<Path> files = Files.walk(snapshots)) {
      if (files.noneMatch(f -> f.toString().endsWith(".json"))) {
        return false;
      }
    }
    long t0 = System.nanoTime();
    Follower c = start("c", Map.of("snapshot.dir", snapshots.toString()));
    out.printf("follower c started on an empty directory: %s in %d ms, catching up from there%n",
        c.restoredFrom().isPresent() ? "restored the sink's snapshot at offset " + c.restoredFrom().getAsLong()
            : "no snapshot to restore, replaying", (System.nanoTime() - t0) / 1_000_000);
    return true;
  }

  private Follower start(String name, Map<String, String> extra) throws InterruptedException {
    Map<String, String> s = new LinkedHashMap<>(Map.of("topic", topic, "kafka.bootstrap.servers", bootstrapServers,
        "replica.path", replica(name).toString(), "name", "quickstart-" + name));
    s.putAll(extra);
    Follower f = Follower.start(s);
    running.put(name, f);
    return f;
  }

  Path replica(String name) {
    return dir.resolve(name + ".db");
  }

  /** One line: each follower's watermark and lag. */
  String line() {
    List<String> parts = new ArrayList<>();
    running.forEach((name, f) -> parts.add("follower " + name + " watermark " + f.position().watermark() + " lag "
        + Math.max(0, f.lag()) + (f.state() == Follower.State.FOLLOWING ? "" : " " + f.state())));
    return String.join(" | ", parts);
  }

  /** The replicas of the followers started, by name. */
  Map<String, Path> replicas() {
    Map<String, Path> out = new LinkedHashMap<>();
    running.keySet().forEach(n -> out.put(n, replica(n)));
    return out;
  }

  @Override
  public void close() {
    running.values().forEach(Follower::close);
  }
}
