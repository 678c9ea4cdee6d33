package io.pg2lite.quickstart;

import io.pg2lite.testkit.TestStack;
import io.pg2lite.testkit.connect.WorkerProcess;
import io.pg2lite.testkit.postgres.TestDatabase;
import io.pg2lite.testkit.support.Await;
import io.pg2lite.testkit.support.QueryRows;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * The embedded demo behind the README's first command: Postgres (embedded), a KRaft broker, and
 * a Connect worker in its own process whose {@code plugin.path} holds the built plugin archives;
 * the source and the sink are registered from {@code etc/} unchanged (their {@code ${env:...}}
 * values come from the worker's environment). A demo workload runs, with a schema change and a
 * table added to the publication, and the replica's tables, watermark and lag are printed as they
 * move. Ctrl-C stops everything (the worker process, the broker, Postgres) and keeps the work
 * directory with the replica, saying where; a timed run whose replica equals Postgres removes it.
 *
 * <p>{@code -Dpg2lite.quickstart.seconds=N} ends the demo after N seconds of workload, once the
 * replica equals Postgres (the quickstart's IT runs it that way). {@code
 * -Dpg2lite.quickstart.followers=true} adds replica followers beside the sink ({@link FollowerDemo}).
 */
public final class Quickstart {
  private final Path pluginPath;
  private final ExampleConfigs configs;
  private final PrintStream out;
  private final AtomicBoolean stop = new AtomicBoolean();
  private final boolean followers;
  /** The jars of the worker's Connect runtime; null: this JVM's classpath (the build's Kafka). */
  private final Path workerLibs;

  /** The worker's log as it was when the run ended; "" before. */
  private volatile String workerLog = "";

  /** How a run ended. */
  record Result(boolean replicaEqualsPostgres, String difference) {}

  /** The worker's log as it was when the run ended (a test reads what the plugins logged there). */
  String workerLog() {
    return workerLog;
  }

  Quickstart(Path pluginPath, Path etc, PrintStream out, boolean followers) {
    this(pluginPath, etc, out, followers, null);
  }

  /**
   * As {@link #Quickstart(Path, Path, PrintStream, boolean)}, the worker running on the jars of
   * {@code workerLibs} (another Kafka Connect version: ConnectVersionIT); null: this JVM's classpath.
   */
  Quickstart(Path pluginPath, Path etc, PrintStream out, boolean followers, Path workerLibs) {
    this.workerLibs = workerLibs;
    this.followers = followers;
    this.pluginPath = pluginPath;
    this.configs = new ExampleConfigs(etc);
    this.out = out;
  }

  public static void main(String[] args) throws Exception {
    Path plugins = Path.of(System.getProperty("pg2lite.pluginPath", "quickstart/target/plugins")).toAbsolutePath();
    Path etc = Path.of(System.getProperty("pg2lite.etc", "etc")).toAbsolutePath();
    long seconds = Long.getLong("pg2lite.quickstart.seconds", 0);
    Quickstart q = new Quickstart(plugins, etc, System.out, Boolean.getBoolean("pg2lite.quickstart.followers"));
    Thread main = Thread.currentThread();
    Runtime.getRuntime().addShutdownHook(new Thread(() -> {
      q.stop.set(true);
      try {
        main.join(60_000); // let the run close the worker, the broker and Postgres
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }, "pg2lite-quickstart-stop"));
    Result r = q.run(seconds > 0 ? Duration.ofSeconds(seconds) : null);
    if (r != null && !r.replicaEqualsPostgres()) {
      System.exit(1);
    }
  }

  /** Runs the demo for {@code duration} (null: until Ctrl-C); null when stopped by Ctrl-C. */
  Result run(Duration duration) throws Exception {
    if (!Files.isDirectory(pluginPath)) {
      throw new IllegalStateException("no plugin archives in " + pluginPath + ": build first (mvn -B install -DskipTests)");
    }
    Path work = Files.createTempDirectory("pg2lite-quickstart");
    Path replicas = Files.createDirectories(work.resolve("replicas"));
    Progress progress = new Progress(out);
    out.println("pg2lite quickstart (Ctrl-C stops everything); work directory " + work);
    Result result = null;
    try (TestStack stack = TestStack.create().quiet()) {
      progress.step("starting Postgres 17 (embedded)", stack::postgres);
      TestDatabase db = stack.postgres().newDatabase("shop");
      DemoDatabase demo = new DemoDatabase(db);
      progress.step("creating the demo schema in database " + db.name() + ": customer (published), orders "
          + "(10,000 rows, not yet published)", () -> {
            demo.create();
            return null;
          });
      progress.step("starting a Kafka broker (KRaft)", stack::kafka);
      Map<String, String> env = ExampleConfigs.environment(stack, db, replicas);
      Map<String, String> overrides = Map.of("bootstrap.servers", stack.kafka().bootstrapServers(),
          "plugin.path", pluginPath.toString());
      // The worker stops before the broker and Postgres (it holds the replication connection).
      try (WorkerProcess worker = progress.step("starting a Connect worker process (" + configs.dir().resolve(
          ExampleConfigs.WORKER_FILE).getFileName() + ", plugin.path " + pluginPath + ")",
          () -> WorkerProcess.start(configs.worker(), overrides, env, "768m", work, List.of(), workerLibs))) {
        out.println("  Kafka Connect " + worker.version());
        String topic = configs.connector(ExampleConfigs.SOURCE_FILE).config().get("topic");
        FollowerDemo demoFollowers = followers ? new FollowerDemo(stack.kafka().bootstrapServers(), topic, work, out)
            : null;
        for (String file : List.of(ExampleConfigs.SOURCE_FILE, ExampleConfigs.SINK_FILE)) {
          ExampleConfigs.Connector c = configs.connector(file);
          Map<String, String> config = new java.util.LinkedHashMap<>(c.config());
          if (demoFollowers != null && file.equals(ExampleConfigs.SINK_FILE)) {
            config.putAll(demoFollowers.sinkSettings());
          }
          progress.step("registering " + c.name() + " from etc/" + file + (config.size() > c.config().size()
              ? " (with a snapshot every " + FollowerDemo.SNAPSHOT_INTERVAL_MS + " ms, for the followers)" : ""), () -> {
            worker.rest().putConnector(c.name(), config);
            worker.rest().awaitRunning(c.name(), Duration.ofSeconds(120));
            return null;
          });
        }
        Path replica = replicas.resolve("replica.db");
        out.println("The replica is an ordinary SQLite file; open it any time with: sqlite3 " + replica);
        out.println("watermark = the change-log position of the last transaction the replica applied (the commit's "
            + "LSN, sortable text); lag = change-log records not applied yet");
        if (demoFollowers != null) {
          progress.step("starting followers a and b beside the sink (replica followers outside Connect: they replay "
              + "the change log from its start)", () -> {
                demoFollowers.startReplaying();
                return null;
              });
        }
        try (ReplicaStatus status = new ReplicaStatus(replica, stack.kafka().bootstrapServers(), topic,
            demo::rowCount); FollowerDemo f = demoFollowers) {
          result = loop(demo, status, replica, duration, f);
          return result;
        } finally {
          workerLog = worker.log();
          if (stop.get()) {
            // Ctrl-C: the JVM's other shutdown hooks (the broker's temp directories) run beside this
            // one and make the closing broker log pages of errors that mean nothing here.
            System.setErr(new PrintStream(java.io.OutputStream.nullOutputStream()));
          }
          out.println("  … stopping the Connect worker, the broker and Postgres");
        }
      }
    } finally {
      if (result != null && result.replicaEqualsPostgres() && duration != null) {
        deleteTree(work);
      } else {
        out.println("work directory kept: " + work + " (the replica: " + replicas.resolve("replica.db") + ")");
      }
    }
  }

  private static void deleteTree(Path dir) {
    try (java.util.stream.Stream<Path> paths = Files.walk(dir)) {
      paths.sorted(java.util.Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
    } catch (java.io.IOException e) {
      // a demo's temp directory: nothing to do about it
    }
  }

  private Result loop(DemoDatabase demo, ReplicaStatus status, Path replica, Duration duration,
      FollowerDemo followers) throws Exception {
    long start = System.nanoTime();
    long deadline = duration == null ? Long.MAX_VALUE : start + duration.toNanos();
    int tick = 0;
    while (!stop.get() && (System.nanoTime() < deadline || !demo.complete())) {
      String event = demo.tick(++tick);
      long elapsed = (System.nanoTime() - start) / 1_000_000_000L;
      if (event != null) {
        out.printf("[%4ds] %s%n", elapsed, event);
      }
      String line = status.line();
      for (String news : status.news()) {
        out.printf("[%4ds] %s%n", elapsed, news);
      }
      out.printf("[%4ds] %s%n", elapsed, line);
      if (followers != null) {
        if (elapsed >= 8) {
          followers.startRestoringIfSnapshot(); // a new follower, from the sink's snapshot
        }
        out.printf("[%4ds] %s%n", elapsed, followers.line());
      }
      Thread.sleep(1_000);
    }
    String[] last = {null};
    if (stop.get()) {
      // Ctrl-C: one quick look, so the user still learns whether the replica had caught up; the
      // embedded Postgres has a shutdown hook of its own and may already be gone.
      try (Connection probe = demo.db().connect()) {
        last[0] = difference(demo.db(), replica);
        out.println(last[0] == null ? "replica equals Postgres" : "replica not caught up yet: " + last[0]);
      } catch (SQLException gone) {
        out.println("stopped (Postgres had already shut down: no final comparison)");
      }
      return null;
    }
    try {
      Await.until("the replica to equal Postgres", Duration.ofSeconds(120), () -> {
        last[0] = difference(demo.db(), replica);
        return last[0] == null;
      });
    } catch (AssertionError e) {
      out.println("replica differs from Postgres: " + last[0]);
      return new Result(false, last[0]);
    }
    String line = status.line();
    status.news().forEach(out::println);
    out.println(line);
    out.println("replica equals Postgres (customer with its new column, orders with its backfilled rows)");
    if (followers != null) {
      followers.startRestoringIfSnapshot();
      for (Map.Entry<String, Path> f : followers.replicas().entrySet()) {
        try {
          Await.until("follower " + f.getKey() + " to equal Postgres", Duration.ofSeconds(120), () -> {
            last[0] = difference(demo.db(), f.getValue());
            return last[0] == null;
          });
        } catch (AssertionError e) {
          out.println("follower " + f.getKey() + " differs from Postgres: " + last[0]);
          return new Result(false, "follower " + f.getKey() + ": " + last[0]);
        }
      }
      out.println(followers.line());
      out.println("followers " + String.join(", ", followers.replicas().keySet()) + " equal Postgres too");
    }
    return new Result(true, null);
  }

  /** The first difference between Postgres and the replica for the demo's tables, or null. */
  static String difference(TestDatabase db, Path replica) {
    for (String sql : List.of(DemoDatabase.CUSTOMERS, DemoDatabase.ORDERS)) {
      try (Connection pg = db.connect(); Connection lite = DriverManager.getConnection("jdbc:sqlite:" + replica)) {
        List<List<String>> a = QueryRows.of(pg, sql);
        List<List<String>> b = QueryRows.of(lite, sql);
        if (!Objects.equals(a, b)) {
          return sql + ": Postgres " + a.size() + " rows, replica " + b.size();
        }
      } catch (SQLException e) {
        return sql + ": " + e.getMessage();
      }
    }
    return null;
  }
}
