package io.pg2lite.sink.bench;

import io.pg2lite.testkit.ConnectorConfigs;
import io.pg2lite.testkit.TestStack;
import io.pg2lite.testkit.postgres.TestDatabase;
import io.pg2lite.testkit.sqlite.SqliteFiles;
import io.pg2lite.testkit.support.BenchSettings;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * The source's throughput with 1 follower against 10, each follower the follower program in a
 * process of its own at the lowest CPU priority ({@code nice -n 19}), as followers sharing a host
 * with the pipeline should run: what the change log's producer then loses to ten more consumers is
 * the broker's serving of them, not CPU the followers take (FollowerBench's {@code fanout} runs
 * the followers inside the pipeline's JVM, where they compete with it for the same two cores).
 * {@code mvn -B -q -pl connector-sink exec:java -Dexec.classpathScope=test
 * -Dexec.mainClass=io.pg2lite.sink.bench.FanOutBench [-Dpg2lite.bench.fanoutRows=300000]
 * [-Dpg2lite.bench.followers=10] [-Dpg2lite.bench.followerArgs="kafka.fetch.min.bytes=65536 ..."]} (extra
 * settings for every follower; or {@code java -cp} with the test class path, as
 * docs/performance.md shows).
 *
 * <p>Rounds: 1 follower (a warm-up, not counted), 1 follower, then 10 (the 9 more catch up first, untimed), then 1 again; in each,
 * {@code fanoutRows} rows inserted in 100-row transactions from one connection as fast as it
 * goes. The source's rate is the rows over the time from the first statement to the last commit
 * being readable in the topic; then each follower must reach that commit (the followers' own
 * time, printed apart) and every replica is compared with Postgres. Follower CPU per row is the
 * processes' CPU time over the rows each applied (JVM start-up excluded: measured from the round's
 * start). Ends with {@code fanout-bench: key=value ...}.
 */
public final class FanOutBench {
  private static final Duration LONG = Duration.ofMinutes(20);

  public static void main(String[] args) throws Exception {
    int rows = Integer.getInteger("pg2lite.bench.fanoutRows", 300_000);
    int count = Integer.getInteger("pg2lite.bench.followers", 10);
    List<Program> followers = new ArrayList<>();
    try (TestStack stack = TestStack.create(); SqliteFiles files = new SqliteFiles()) {
      TestDatabase db = stack.postgres().newDatabase("fanout_nice");
      db.execute("CREATE TABLE item (id bigint PRIMARY KEY, name text, qty int, price numeric, at timestamptz)",
          "CREATE PUBLICATION fan_pub FOR TABLE item");
      String topic = stack.kafka().uniqueTopicName("fanout");
      stack.connect().rest().putConnector("fan-source", ConnectorConfigs.source(stack, "fan-source", db.name(), "fan",
          topic));
      stack.connect().rest().awaitRunning("fan-source", Duration.ofSeconds(90));
      System.out.printf("== Fan-out: %,d rows in 100-row transactions, 1 follower vs %d (processes, nice 19)%n", rows,
          count);
      try (FollowerBench.CommitTail tail = new FollowerBench.CommitTail(stack.kafka().bootstrapServers(), topic)) {
        String lsn = FollowerBench.write(db, 0, 20_000); // warm-up, uncounted
        followers.add(Program.start(stack, topic, files.newFile("nice-1"), "nice-1"));
        awaitAll(followers, tail.awaitCovering(lsn).offset());
        System.out.printf("%-10s %9s %11s %14s %20s %15s%n", "followers", "source s", "source r/s", "followers s",
            "follower CPU µs/row", "pipeline µs/row");
        // A whole round to warm the pipeline up (JIT, the broker's segments): the first round
        // otherwise meets colder code than the later ones and makes any comparison unfair.
        round(db, tail, followers, 20_000, rows, "1 (warm-up)");
        int base = 20_000 + rows;
        double one = round(db, tail, followers, base, rows, "1");
        for (int i = 2; i <= count; i++) {
          followers.add(Program.start(stack, topic, files.newFile("nice-" + i), "nice-" + i));
        }
        awaitAll(followers, tail.latest().offset());
        double many = round(db, tail, followers, base + rows, rows, String.valueOf(count));
        String pg = FollowerBench.checksum(db, "item");
        int equal = 0;
        for (Program p : followers) {
          equal += FollowerBench.checksum(p.replica, "item").equals(pg) ? 1 : 0;
        }
        while (followers.size() > 1) {
          followers.remove(followers.size() - 1).close();
        }
        double again = round(db, tail, followers, base + 2 * rows, rows, "1 again");
        double drop = 1 - many / ((one + again) / 2);
        System.out.printf("source throughput with %d followers: %.1f%% below the mean of the 1-follower rounds "
            + "(target < 10%%); replicas equal to Postgres after the %d-follower round: %d of %d%n", count, drop * 100,
            count, equal, count);
        System.out.printf("fanout-bench: src_rows_s_1=%.0f src_rows_s_%d=%.0f src_rows_s_1_again=%.0f drop_pct=%.1f "
            + "replicas_equal=%d/%d%n", one, count, many, again, drop * 100, equal, count);
      } finally {
        followers.forEach(Program::close);
      }
    }
  }

  /** One round; returns the source's rows per second. */
  private static double round(TestDatabase db, FollowerBench.CommitTail tail, List<Program> followers, int from,
      int rows, String label) throws Exception {
    long[] cpu0 = followers.stream().mapToLong(Program::cpuNanos).toArray();
    long pipeline0 = BenchSettings.processCpuNanos();
    long t0 = System.nanoTime();
    String lsn = FollowerBench.write(db, from, rows);
    FollowerBench.Commit last = tail.awaitCovering(lsn);
    double sourceS = (last.seenNanos() - t0) / 1e9;
    long pipelineCpu = BenchSettings.processCpuNanos() - pipeline0;
    awaitAll(followers, last.offset());
    double allS = (System.nanoTime() - t0) / 1e9;
    double cpuPerRow = 0;
    for (int i = 0; i < followers.size(); i++) {
      cpuPerRow += (followers.get(i).cpuNanos() - cpu0[i]) / 1e3 / rows;
    }
    System.out.printf("%-10s %9.1f %11.0f %14.1f %20.1f %15.1f%n", label, sourceS, rows / sourceS, allS,
        cpuPerRow / followers.size(), pipelineCpu / 1e3 / rows);
    return rows / sourceS;
  }

  private static void awaitAll(List<Program> followers, long offset) throws InterruptedException {
    long deadline = System.nanoTime() + LONG.toNanos();
    for (Program p : followers) {
      while (FollowerBench.stateOffset(p.replica) < offset) {
        if (!p.process.isAlive() || System.nanoTime() > deadline) {
          throw new IllegalStateException(p.replica + " did not reach offset " + offset + "; see " + p.log);
        }
        Thread.sleep(20);
      }
    }
  }

  /** The follower program, niced, on this JVM's class path. */
  private record Program(Process process, Path replica, Path log) implements AutoCloseable {
    static Program start(TestStack stack, String topic, Path replica, String name) throws Exception {
      Path log = Files.createTempFile("pg2lite-" + name, ".log");
      List<String> cmd = List.of("nice", "-n", "19", Path.of(System.getProperty("java.home"), "bin", "java").toString(),
          "-Xmx256m", "-XX:+UseSerialGC", "-cp", System.getProperty("java.class.path"),
          "io.pg2lite.follower.cli.FollowerMain", "follow", "topic=" + topic,
          "kafka.bootstrap.servers=" + stack.kafka().bootstrapServers(), "replica.path=" + replica, "name=" + name);
      String extra = System.getProperty("pg2lite.bench.followerArgs", "").trim();
      if (!extra.isEmpty()) {
        cmd = new ArrayList<>(cmd);
        cmd.addAll(List.of(extra.split("\\s+")));
      }
      Process p = new ProcessBuilder(cmd).redirectErrorStream(true).redirectOutput(log.toFile()).start();
      return new Program(p, replica, log);
    }

    long cpuNanos() {
      return process.info().totalCpuDuration().map(Duration::toNanos).orElse(0L);
    }

    @Override
    public void close() {
      process.destroy();
      try {
        process.waitFor();
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }
  }
}
