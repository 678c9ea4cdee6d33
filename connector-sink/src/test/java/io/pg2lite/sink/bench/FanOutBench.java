package io.pg2lite.sink.bench;

import io.pg2lite.testkit.ConnectorConfigs;
import io.pg2lite.testkit.TestStack;
import io.pg2lite.testkit.postgres.TestDatabase;
import io.pg2lite.testkit.sqlite.SqliteFiles;
import io.pg2lite.testkit.connect.WorkerProcess;
import io.pg2lite.testkit.support.BenchSettings;
import io.pg2lite.testkit.support.SvgPlot;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * How the source and each replica fare as replicas are added on one change-log topic (issue 26's
 * fan-out curve; issue 25's ten followers): {@code -Dpg2lite.bench.fanout=1,4,8} replicas of each
 * kind in {@code -Dpg2lite.bench.replicaKinds=followers,sinks}. A follower is the follower program
 * in a process of its own; the sinks are sink connectors in one Connect worker of their own (a
 * second Connect cluster, {@link WorkerProcess}), so that their CPU is counted apart from the
 * source's worker (the stack's, in this JVM). Either runs at the lowest CPU priority
 * ({@code nice -n 19}), as replicas sharing a host with the pipeline should: what the source then
 * loses to more replicas is the broker serving them, not CPU the replicas take.
 *
 * <pre>
 * java [-Dpg2lite.bench.fanoutRows=100000] [-Dpg2lite.bench.fanout=1,4,8]
 *     [-Dpg2lite.bench.replicaKinds=followers,sinks] [-Dpg2lite.bench.followerArgs="kafka.fetch.min.bytes=65536 ..."]
 *     [-Dpg2lite.bench.plotDir=docs/performance] -cp ... io.pg2lite.sink.bench.FanOutBench
 * </pre>
 *
 * <p>Per kind: a warm-up round with one replica (not counted), then a round per count; the
 * replicas added before a round catch up first, untimed. In a round, {@code fanoutRows} rows are
 * inserted in 100-row transactions from one connection as fast as it goes. The source's rate is
 * the rows over the time from the first statement to the last commit being readable in the topic;
 * then every replica must reach that commit (the replicas' own time, printed apart), and at the end
 * every replica is compared with Postgres. CPU per replica and row is the replica processes' CPU
 * over the rows each applied, divided by the replicas. Writes {@code fanout-source.svg} and
 * {@code fanout-replica-cpu.svg}; ends with {@code fanout-bench: key=value ...}.
 */
public final class FanOutBench {
  private static final Duration LONG = Duration.ofMinutes(20);
  private static final Path PLOTS = Path.of(System.getProperty("pg2lite.bench.plotDir", "docs/performance"));

  public static void main(String[] args) throws Exception {
    int rows = Integer.getInteger("pg2lite.bench.fanoutRows", 100_000);
    int[] counts = java.util.Arrays.stream(System.getProperty("pg2lite.bench.fanout", "1,4,8").split(","))
        .mapToInt(c -> Integer.parseInt(c.trim())).toArray();
    List<String> kinds = List.of(System.getProperty("pg2lite.bench.replicaKinds", "followers,sinks").split(","));
    SvgPlot source = new SvgPlot("Source rate against replicas on the topic", "replicas", "source rows/s", false);
    SvgPlot cpu = new SvgPlot("CPU per replica against replicas on the topic", "replicas", "µs of CPU per row",
        false);
    StringBuilder line = new StringBuilder("fanout-bench:");
    Path work = Files.createTempDirectory("pg2lite-fanout-bench");
    try (TestStack stack = TestStack.create(); SqliteFiles files = new SqliteFiles()) {
      int from = 0;
      for (String kind : kinds) {
        TestDatabase db = stack.postgres().newDatabase("fanout_" + kind);
        db.execute("CREATE TABLE item (id bigint PRIMARY KEY, name text, qty int, price numeric, at timestamptz)",
            "CREATE PUBLICATION fan_" + kind + "_pub FOR TABLE item");
        String topic = stack.kafka().uniqueTopicName("fanout");
        String name = "fan-" + kind;
        stack.connect().rest().putConnector(name, ConnectorConfigs.source(stack, name, db.name(), "fan_" + kind,
            topic));
        stack.connect().rest().awaitRunning(name, Duration.ofSeconds(90));
        System.out.printf("== Fan-out, %s: %,d rows in 100-row transactions a round, %s replicas (nice 19)%n", kind,
            rows, java.util.Arrays.toString(counts));
        try (FollowerBench.CommitTail tail = new FollowerBench.CommitTail(stack.kafka().bootstrapServers(), topic);
            Fleet fleet = kind.equals("sinks") ? new SinkFleet(stack, topic, files, work) : new FollowerFleet(stack,
                topic, files)) {
          String lsn = FollowerBench.write(db, 0, 20_000); // the table's first rows, uncounted
          fleet.grow(1);
          fleet.awaitAll(tail.awaitCovering(lsn).offset());
          System.out.printf("%-12s %9s %11s %14s %22s %15s%n", "replicas", "source s", "source r/s", "replicas s",
              "CPU µs/row per replica", "pipeline µs/row");
          // A whole round to warm the pipeline up (JIT, the broker's segments): the first round
          // otherwise meets colder code than the later ones and makes any comparison unfair.
          from = 20_000;
          round(db, tail, fleet, from, rows, "1 (warm-up)");
          double first = 0;
          for (int count : counts) {
            from += rows;
            fleet.grow(count);
            fleet.awaitAll(tail.latest().offset());
            double[] r = round(db, tail, fleet, from, rows, String.valueOf(count));
            first = first == 0 ? r[0] : first;
            source.point(kind, count, r[0]);
            cpu.point(kind, count, r[1]);
            line.append(String.format(" %s_%d_src_rows_s=%.0f %s_%d_cpu_us_row=%.1f", kind, count, r[0], kind, count,
                r[1]));
          }
          String pg = FollowerBench.checksum(db, "item");
          int equal = 0;
          for (Path replica : fleet.replicas()) {
            equal += FollowerBench.checksum(replica, "item").equals(pg) ? 1 : 0;
          }
          System.out.printf("%s: replicas equal to Postgres %d of %d; the source's rate with %d replicas is %.1f%% "
              + "below its rate with %d%n", kind, equal, fleet.replicas().size(), counts[counts.length - 1],
              100 * (1 - source.last(kind) / first), counts[0]);
          line.append(String.format(" %s_equal=%d/%d", kind, equal, fleet.replicas().size()));
        }
        stack.connect().rest().delete(name);
      }
    }
    System.out.printf("plots: %s %s%n", source.write(PLOTS.resolve("fanout-source.svg")),
        cpu.write(PLOTS.resolve("fanout-replica-cpu.svg")));
    System.out.println(line);
  }

  /** One round; returns the source's rows per second and the replicas' CPU µs per row, per replica. */
  private static double[] round(TestDatabase db, FollowerBench.CommitTail tail, Fleet fleet, int from, int rows,
      String label) throws Exception {
    long cpu0 = fleet.cpuNanos();
    long pipeline0 = BenchSettings.processCpuNanos();
    long t0 = System.nanoTime();
    String lsn = FollowerBench.write(db, from, rows);
    FollowerBench.Commit last = tail.awaitCovering(lsn);
    double sourceS = (last.seenNanos() - t0) / 1e9;
    long pipelineCpu = BenchSettings.processCpuNanos() - pipeline0;
    fleet.awaitAll(last.offset());
    double allS = (System.nanoTime() - t0) / 1e9;
    double perReplica = (fleet.cpuNanos() - cpu0) / 1e3 / rows / fleet.replicas().size();
    System.out.printf("%-12s %9.1f %11.0f %14.1f %22.1f %15.1f%n", label, sourceS, rows / sourceS, allS, perReplica,
        pipelineCpu / 1e3 / rows);
    return new double[] {rows / sourceS, perReplica};
  }

  /** The replicas of one kind on the topic. */
  private abstract static class Fleet implements AutoCloseable {
    final List<Path> replicas = new ArrayList<>();

    List<Path> replicas() {
      return replicas;
    }

    /** Adds replicas until there are {@code count}. */
    abstract void grow(int count) throws Exception;

    /** CPU the replicas' processes used so far, in nanoseconds. */
    abstract long cpuNanos();

    abstract boolean alive();

    void awaitAll(long offset) throws InterruptedException {
      long deadline = System.nanoTime() + LONG.toNanos();
      for (Path replica : replicas) {
        while (FollowerBench.stateOffset(replica) < offset) {
          if (!alive() || System.nanoTime() > deadline) {
            throw new IllegalStateException(replica + " did not reach offset " + offset);
          }
          Thread.sleep(20);
        }
      }
    }
  }

  private static final class FollowerFleet extends Fleet {
    private final TestStack stack;
    private final String topic;
    private final SqliteFiles files;
    private final List<Program> programs = new ArrayList<>();

    FollowerFleet(TestStack stack, String topic, SqliteFiles files) {
      this.stack = stack;
      this.topic = topic;
      this.files = files;
    }

    @Override
    void grow(int count) throws Exception {
      while (programs.size() < count) {
        String name = "nice-" + topic + "-" + (programs.size() + 1);
        Program p = Program.start(stack, topic, files.newFile(name), name);
        programs.add(p);
        replicas.add(p.replica());
      }
    }

    @Override
    long cpuNanos() {
      return programs.stream().mapToLong(Program::cpuNanos).sum();
    }

    @Override
    boolean alive() {
      return programs.stream().allMatch(p -> p.process().isAlive());
    }

    @Override
    public void close() {
      programs.forEach(Program::close);
    }
  }

  /** Sink connectors in a worker process of their own (its own Connect cluster), every thread reniced. */
  private static final class SinkFleet extends Fleet {
    private final TestStack stack;
    private final String topic;
    private final SqliteFiles files;
    private final WorkerProcess worker;

    SinkFleet(TestStack stack, String topic, SqliteFiles files, Path work) throws Exception {
      this.stack = stack;
      this.topic = topic;
      this.files = files;
      Path dir = Files.createDirectories(work.resolve("sinks-" + topic));
      this.worker = WorkerProcess.start(stack.kafka().bootstrapServers(), "1g", dir, false);
    }

    /**
     * Renices every thread of the worker: on Linux {@code renice -p} reaches only the thread whose
     * id is the pid, and a thread takes its priority from the thread that starts it, so the
     * tasks' threads (started by Connect's herder) would otherwise run at full priority.
     */
    private void reniceThreads() throws Exception {
      List<String> cmd = new ArrayList<>(List.of("renice", "-n", "19", "-p"));
      try (var tasks = Files.list(Path.of("/proc", Long.toString(worker.pid()), "task"))) {
        tasks.forEach(t -> cmd.add(t.getFileName().toString()));
      }
      new ProcessBuilder(cmd).redirectOutput(ProcessBuilder.Redirect.DISCARD)
          .redirectError(ProcessBuilder.Redirect.DISCARD).start().waitFor();
    }

    @Override
    void grow(int count) throws Exception {
      while (replicas.size() < count) {
        String name = "fan-sink-" + (replicas.size() + 1);
        Path replica = files.newFile(name + "-" + topic);
        worker.rest().putConnector(name, ConnectorConfigs.sink(stack, name, topic, replica));
        worker.rest().awaitRunning(name, Duration.ofSeconds(90));
        replicas.add(replica);
      }
      Thread.sleep(1000); // the new tasks' consumer threads start after RUNNING
      reniceThreads();
    }

    @Override
    long cpuNanos() {
      return worker.cpuNanos();
    }

    @Override
    boolean alive() {
      return worker.alive();
    }

    @Override
    public void close() throws Exception {
      worker.close();
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
