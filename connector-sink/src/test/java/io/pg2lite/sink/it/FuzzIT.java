package io.pg2lite.sink.it;

import static org.junit.jupiter.api.Assertions.fail;

import io.pg2lite.testkit.ConnectorConfigs;
import io.pg2lite.testkit.TestStack;
import io.pg2lite.testkit.TestStackExtension;
import io.pg2lite.testkit.connect.ConnectRestClient;
import io.pg2lite.testkit.connect.ConnectWorker;
import io.pg2lite.testkit.connect.ConnectorStatus;
import io.pg2lite.testkit.fuzz.Action;
import io.pg2lite.testkit.fuzz.FuzzFeature;
import io.pg2lite.testkit.fuzz.ReplicaComparator;
import io.pg2lite.testkit.fuzz.Workload;
import io.pg2lite.testkit.fuzz.WorkloadGenerator;
import io.pg2lite.testkit.fuzz.WorkloadRunner;
import io.pg2lite.testkit.postgres.PostgresServer;
import io.pg2lite.testkit.postgres.TestDatabase;
import io.pg2lite.testkit.sqlite.SqliteFiles;
import io.pg2lite.testkit.support.Await;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.nio.file.StandardOpenOption;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The randomized differential test (issue 10): a seeded workload ({@link WorkloadGenerator}: DML
 * with edge values, rollbacks, two sessions, DDL, publication changes, restarts of the source, the
 * sink and the whole worker) runs against Postgres while the pipeline replicates it; then every
 * published table is compared with the replica cell by cell ({@link ReplicaComparator}) once the
 * replica has applied a final marker transaction and has nothing left to backfill.
 *
 * <p>Which seeds, on which Postgres:
 * <ul>
 *   <li>default ({@code mvn verify}): seed 1 on PostgreSQL 17 (the shared test server), seed 2 on
 *       PostgreSQL 18 and seed 27 on PostgreSQL 15 (servers of this class, from binaries the build
 *       copies into {@code target/postgres-binaries}) with event triggers, and seeds 3 (17) and 28 (15) without
 *       ({@code ddl.detection = replication-stream}), every {@link FuzzFeature} on;</li>
 *   <li>{@code -Pfuzz}: {@code pg2lite.fuzz.seeds} seeds (default 100 in the profile), each on every
 *       version of {@code pg2lite.fuzz.versions} (default {@code 17,18,16,15});</li>
 *   <li>{@code -Dpg2lite.fuzz.seed=N}: replays seed N (on {@code pg2lite.fuzz.versions});
 *       {@code -Dpg2lite.fuzz.seeds=A..B} runs a range, {@code A,B,C} a list, {@code -Dpg2lite.fuzz.seeds=K} seeds
 *       {@code pg2lite.fuzz.firstSeed} (default 1000) onwards;</li>
 *   <li>{@code -Dpg2lite.fuzz.ddl=replication-stream} (or {@code event-triggers}, the default, or
 *       both, comma-separated) chooses how the source detects DDL;</li>
 *   <li>{@code -Dpg2lite.fuzz.disable=RETYPE,NEGATIVE_ZERO} switches features off (another
 *       workload for the same seed); {@code -Dpg2lite.fuzz.transactions} sets the length (60).</li>
 * </ul>
 * Each run writes its workload to {@code target/fuzz/seed-<N>-pg<V>.sql} before it starts, keeps
 * the replica next to it when the comparison fails, and appends its outcome to
 * {@code target/fuzz/summary.txt}.
 *
 * <p>Each run has its own database, topic, replica and Connect worker (a worker restart must not
 * touch the shared one).
 */
@ExtendWith(TestStackExtension.class)
class FuzzIT {
  private static final Duration WAIT = Duration.ofSeconds(90);
  private static final Duration CONVERGE = Duration.ofSeconds(Long.getLong("pg2lite.fuzz.convergeSeconds", 180));
  private static final Path OUT = Paths.get(System.getProperty("pg2lite.fuzz.dir", "target/fuzz"));
  /** The two ways of detecting DDL ({@code ddl.detection}, ADR 0027): {@code -Dpg2lite.fuzz.ddl=A,B} picks. */
  private static final String TRIGGERS = "event-triggers";
  private static final String STREAM = "replication-stream";
  private static final int TRANSACTIONS = Integer.getInteger("pg2lite.fuzz.transactions", 60);
  /**
   * {@code -Dpg2lite.fuzz.lateSink=true}: the sink starts only after the workload, so it replays
   * the whole log in large batches (many upstream transactions per SQLite transaction), as a new
   * replica or one restored from an old snapshot does.
   */
  private static final boolean LATE_SINK = Boolean.getBoolean("pg2lite.fuzz.lateSink");
  /**
   * {@code -Dpg2lite.fuzz.splitRecords=N}: the source commits its Kafka transaction every N
   * records ({@code exactly.once.split.records}), inside upstream transactions, so restarts land
   * inside split transactions (a prefix committed, then a rollback and the whole again).
   */
  private static final String SPLIT_RECORDS = System.getProperty("pg2lite.fuzz.splitRecords");
  /**
   * Features whose defects the fuzzer found and that are still open (issue 10's closing note and
   * docs/fuzzing.md list them): off unless {@code -Dpg2lite.fuzz.disable=} (empty) turns everything
   * on. Remove a name here in the commit that fixes its defect.
   */
  static final String OPEN_DEFECTS = "";
  private static final Set<FuzzFeature> FEATURES = FuzzFeature.allExcept(
      System.getProperty("pg2lite.fuzz.disable", OPEN_DEFECTS));
  /** Servers of the versions other than the shared test server's, started once per class run. */
  private static final Map<Integer, PostgresServer> OTHER_SERVERS = new TreeMap<>();
  /** The majors FuzzIT has binaries for: the build copies 15, 16 and 18 beside the classpath's 17. */
  private static final Set<Integer> VERSIONS = Set.of(15, 16, 17, 18);

  static Stream<Arguments> cases() {
    String one = System.getProperty("pg2lite.fuzz.seed");
    String many = System.getProperty("pg2lite.fuzz.seeds");
    if (one == null && (many == null || many.isBlank())) {
      return Stream.of(Arguments.of(1L, 17, TRIGGERS), Arguments.of(2L, 18, TRIGGERS), Arguments.of(27L, 15, TRIGGERS),
          Arguments.of(3L, 17, STREAM), Arguments.of(28L, 15, STREAM));
    }
    List<Long> seeds = new ArrayList<>();
    if (one != null) {
      seeds.add(Long.parseLong(one.trim()));
    } else if (many.contains(",")) {
      Stream.of(many.split(",")).map(String::trim).filter(v -> !v.isEmpty()).map(Long::valueOf).forEach(seeds::add);
    } else if (many.contains("..")) {
      String[] range = many.split("\\.\\.");
      for (long s = Long.parseLong(range[0].trim()); s <= Long.parseLong(range[1].trim()); s++) {
        seeds.add(s);
      }
    } else {
      long first = Long.getLong("pg2lite.fuzz.firstSeed", 1000);
      for (long s = first; s < first + Long.parseLong(many.trim()); s++) {
        seeds.add(s);
      }
    }
    List<Integer> versions = Stream.of(System.getProperty("pg2lite.fuzz.versions", "17,15").split(","))
        .map(String::trim).filter(v -> !v.isEmpty()).map(Integer::valueOf).toList();
    List<String> modes = Stream.of(System.getProperty("pg2lite.fuzz.ddl", TRIGGERS).split(","))
        .map(String::trim).filter(v -> !v.isEmpty()).toList();
    return seeds.stream().flatMap(s -> versions.stream().flatMap(v -> modes.stream().map(m -> Arguments.of(s, v, m))));
  }

  @AfterAll
  static synchronized void stopOtherServers() throws Exception {
    for (PostgresServer server : OTHER_SERVERS.values()) {
      server.close();
    }
    OTHER_SERVERS.clear();
  }

  private static synchronized PostgresServer server(TestStack stack, int version) throws Exception {
    if (version == PostgresServer.EXPECTED_MAJOR_VERSION) {
      return stack.postgres();
    }
    if (!VERSIONS.contains(version)) {
      throw new IllegalArgumentException("FuzzIT runs on PostgreSQL " + new TreeSet<>(VERSIONS) + ", not " + version);
    }
    PostgresServer server = OTHER_SERVERS.get(version);
    if (server == null) {
      long t0 = System.nanoTime();
      server = PostgresServer.start(version);
      OTHER_SERVERS.put(version, server);
      System.out.printf("fuzz: %s started in %.1f s%n", server.version(), (System.nanoTime() - t0) / 1e9);
    }
    return server;
  }

  @ParameterizedTest(name = "seed {0} on PostgreSQL {1}, DDL by {2}")
  @MethodSource("cases")
  void replicaEqualsPostgres(long seed, int version, String detection, TestStack stack) throws Exception {
    long t0 = System.nanoTime();
    Workload workload = WorkloadGenerator.generate(seed, TRANSACTIONS, FEATURES).withSlotLoss().withVerifications();
    Path script = workload.writeScript(OUT.resolve("seed-" + seed + "-pg" + version + ".sql"));
    String outcome = "FAIL (exception)";
    try (FuzzRun run = new FuzzRun(stack, server(stack, version), seed, version, detection)) {
      outcome = run.run(workload, script);
    } catch (Throwable e) {
      outcome = "FAIL: " + headline(e);
      throw e;
    } finally {
      String line = String.format("seed %d pg%d %s %s: %s (%.0f s, %s; %s)", seed, version, detection, disabled(),
          outcome,
          (System.nanoTime() - t0) / 1e9, workload.summary(), script.toAbsolutePath());
      System.out.println("fuzz: " + line);
      Files.writeString(OUT.resolve("summary.txt"), line + System.lineSeparator(), StandardCharsets.UTF_8,
          StandardOpenOption.CREATE, StandardOpenOption.APPEND);
    }
  }

  /**
   * The line of a failure that says most, for the summary: the deepest pg2lite error of a failed
   * task (its first pg2lite cause), else the first difference, else the first line.
   */
  static String headline(Throwable e) {
    String message = String.valueOf(e.getMessage());
    String best = null;
    for (String line : message.split("\n")) {
      if (best == null && (line.contains("Caused by: io.pg2lite") || line.contains("Caused by: java.lang.Illegal"))) {
        best = line.replaceFirst("^Caused by: ", "");
      } else if (best == null && line.startsWith("  table ")) {
        return line.trim();
      }
    }
    if (best != null) {
      return best.length() > 400 ? best.substring(0, 400) + "…" : best;
    }
    String first = message.strip().split("\n")[0];
    return first.length() > 400 ? first.substring(0, 400) + "…" : first;
  }

  private static String disabled() {
    Set<FuzzFeature> off = FuzzFeature.allExcept(null);
    off.removeAll(FEATURES);
    return off.isEmpty() ? "all features" : "without " + off;
  }

  /** One seed's pipeline: database, topic, own worker with source and sink, replica file. */
  private static final class FuzzRun implements AutoCloseable {
    private final TestStack stack;
    private final PostgresServer server;
    private final long seed;
    private final int version;
    /** {@code ddl.detection}: event-triggers or replication-stream. */
    private final String detection;
    private final TestDatabase db;
    private final String topic;
    private final SqliteFiles files;
    private final Path replica;
    private final String source;
    private final String sink;
    private ConnectWorker worker;
    private boolean sinkStarted;
    /** Null without FuzzFeature.FOLLOWERS. */
    private FuzzFollowers followers;

    FuzzRun(TestStack stack, PostgresServer server, long seed, int version, String detection) throws Exception {
      this.stack = stack;
      this.detection = detection;
      this.server = server;
      this.seed = seed;
      this.version = version;
      this.db = server.newDatabase("fuzz_s" + seed + "_pg" + version);
      this.topic = stack.kafka().uniqueTopicName(db.name());
      this.files = new SqliteFiles();
      this.replica = files.newFile("replica");
      this.source = db.name() + "-source";
      this.sink = db.name() + "-sink";
    }

    /**
     * Runs the workload and compares; returns "PASS" or fails the test with the differences. On a
     * failure the change log is written next to the workload ({@code seed-<N>-pg<V>.log}), one
     * record a line: offset, sequence number, replica version, the record's JSON.
     */
    String run(Workload workload, Path script) throws Exception {
      try {
        return runAndCompare(workload, script);
      } catch (Exception | AssertionError e) {
        dumpChangeLog(OUT.resolve("seed-" + seed + "-pg" + version + ".log"));
        throw e;
      }
    }

    private void dumpChangeLog(Path file) {
      try (io.pg2lite.testkit.kafka.TopicReader r = new io.pg2lite.testkit.kafka.TopicReader(
          stack.kafka().bootstrapServers(), topic); java.io.BufferedWriter out = Files.newBufferedWriter(file)) {
        for (org.apache.kafka.clients.consumer.ConsumerRecord<byte[], byte[]> rec : r.readToEnd(Duration.ofSeconds(60))) {
          out.write(rec.offset() + " " + header(rec, "pg2lite.seq") + " " + header(rec, "pg2lite.replica.version") + " "
              + new String(rec.value(), java.nio.charset.StandardCharsets.UTF_8) + "\n");
        }
      } catch (RuntimeException | java.io.IOException e) {
        System.out.println("fuzz: seed " + seed + ": could not write the change log to " + file + ": " + e);
      }
    }

    private static String header(org.apache.kafka.clients.consumer.ConsumerRecord<byte[], byte[]> rec, String key) {
      org.apache.kafka.common.header.Header h = rec.headers().lastHeader(key);
      return h == null ? "-" : new String(h.value(), java.nio.charset.StandardCharsets.UTF_8);
    }

    private String runAndCompare(Workload workload, Path script) throws Exception {
      try (WorkloadRunner setup = new WorkloadRunner(db.jdbcUrl(), server.user(), server.password(), k -> { })) {
        setup.run(workload.setup());
        failOnStatementErrors(setup, "setup", script);
      }
      worker = stack.newConnectWorker().start();
      Map<String, String> sourceConfig = ConnectorConfigs.source(stack, source, db.name(), db.name(), topic);
      sourceConfig.put("database.port", String.valueOf(server.port()));
      sourceConfig.put("publication.name", workload.publication());
      sourceConfig.put("heartbeat.interval.ms", "1000");
      sourceConfig.put("ddl.detection", detection);
      sourceConfig.put("schema.check.interval.ms", "500");
      if (FEATURES.contains(FuzzFeature.SLOT_LOSS)) {
        sourceConfig.put("resync.auto", "true");
      }
      if (SPLIT_RECORDS != null) {
        sourceConfig.put("exactly.once.split.records", SPLIT_RECORDS);
      }
      worker.rest().putConnector(source, sourceConfig);
      worker.rest().awaitRunning(source, WAIT);
      Map<String, String> sinkConfig = ConnectorConfigs.sink(stack, sink, topic, replica);
      if (FEATURES.contains(FuzzFeature.SNAPSHOT_RESTORES)) {
        sinkConfig.put("snapshot.dir", Files.createTempDirectory("pg2lite-fuzz-snapshots").toString());
        sinkConfig.put("snapshot.interval.ms", "1000");
        sinkConfig.put("snapshot.keep", "2");
      }
      if (FEATURES.contains(FuzzFeature.FOLLOWERS)) {
        followers = new FuzzFollowers(stack.kafka().bootstrapServers(), topic, files,
            sinkConfig.containsKey("snapshot.dir") ? Path.of(sinkConfig.get("snapshot.dir")) : null,
            Boolean.parseBoolean(sinkConfig.getOrDefault("resync.auto", "false")));
      }
      if (!LATE_SINK) {
        startSink(sinkConfig);
      }

      long markerValue;
      try (WorkloadRunner runner = new WorkloadRunner(db.jdbcUrl(), server.user(), server.password(), this::restart)) {
        runner.run(workload.actions());
        failOnStatementErrors(runner, "workload", script);
        if (STREAM.equals(detection)) {
          awaitCatalogCheckAfter(System.currentTimeMillis());
        }
        markerValue = runner.bumpMarker(workload.marker());
      }
      if (LATE_SINK) {
        startSink(sinkConfig);
      }
      String watermark = awaitConverged(workload.marker(), markerValue, script);
      if (followers != null) {
        List<String> differ = followers.awaitAndCompare(watermark, CONVERGE, this::connectPostgres,
            workload.publication());
        if (!differ.isEmpty()) {
          fail("seed " + seed + " on PostgreSQL " + version + ": " + String.join("\n", differ) + "\nworkload: "
              + script.toAbsolutePath() + "\nreplay: " + replayCommand());
        }
      }
      ReplicaComparator.Result result;
      try (Connection pg = db.connect(); Connection lite = SqliteFiles.open(replica)) {
        result = new ReplicaComparator(15).compare(pg, workload.publication(), lite);
      }
      if (!result.same()) {
        Path kept = OUT.resolve("seed-" + seed + "-pg" + version + ".db");
        Files.deleteIfExists(kept);
        try (Connection lite = SqliteFiles.open(replica); Statement s = lite.createStatement()) {
          s.executeUpdate("backup to " + kept.toAbsolutePath()); // the file alone would miss what is in the WAL
        }
        StringBuilder msg = new StringBuilder("Replica differs from Postgres: seed " + seed + ", " + server.version()
            + ", replica watermark " + watermark + ", " + result.total() + " differences in " + result.tables()
            + " tables (" + result.rows() + " rows); the first ones:");
        result.differences().forEach(d -> msg.append("\n  ").append(d));
        msg.append("\nworkload: ").append(script.toAbsolutePath()).append("\nreplica: ").append(kept.toAbsolutePath())
            .append("\nreplay: ").append(replayCommand());
        fail(msg.toString());
      }
      String verified = FEATURES.contains(FuzzFeature.VERIFY)
          ? "; " + checkVerifications(workload, script, result.tables()) : "";
      return "PASS (" + result.tables() + " tables, " + result.rows() + " rows, watermark " + watermark + verified
          + (followers == null ? "" : "; " + followers.summary() + " equal too") + ")";
    }

    /**
     * The workload's verification requests, as the replica answered them: none may differ, none
     * may be left pending, and a table not comparable must be so for a reason that is no failure
     * (the source failing to read or look up rows is one). A replica replaced meanwhile (a snapshot
     * restored, a new lineage) holds only the answers written after; so one more request, once
     * everything has converged, must be answered for every table, all matching (a table without a
     * row key excepted). Returns the tally for the PASS line.
     */
    private String checkVerifications(Workload workload, Path script, int tables) throws Exception {
      String last = "fuzz-" + seed + "-converged";
      try (Connection pg = connectPostgres(); Statement s = pg.createStatement()) {
        s.execute("SELECT pg_logical_emit_message(true, 'pg2lite.verify', '{\"id\":\"" + last + "\"}')");
      }
      List<String> ids = new java.util.ArrayList<>(List.of("'" + last + "'"));
      for (int k = 0; k < Workload.VERIFICATIONS; k++) {
        ids.add("'" + workload.verificationId(k) + "'");
      }
      String query = "SELECT id, table_name, result, coalesce(detail, '') FROM \"_pg2lite.verify\" WHERE id IN ("
          + String.join(", ", ids) + ")";
      List<List<String>> rows = new java.util.ArrayList<>();
      Await.until("the verifications answered", CONVERGE, () -> {
        rows.clear();
        try (Connection lite = SqliteFiles.open(replica); Statement s = lite.createStatement();
            java.sql.ResultSet rs = s.executeQuery(query)) {
          while (rs.next()) {
            rows.add(List.of(rs.getString(1), rs.getString(2), rs.getString(3), rs.getString(4)));
          }
        } catch (java.sql.SQLException e) {
          return false;
        }
        return rows.stream().filter(r -> r.get(0).equals(last)).count() >= tables
            && rows.stream().noneMatch(r -> r.get(2).equals("pending"));
      });
      java.util.Map<String, Long> tally = new java.util.TreeMap<>();
      List<String> wrong = new java.util.ArrayList<>();
      for (List<String> r : rows) {
        tally.merge(r.get(2), 1L, Long::sum);
        boolean sourceFailed = r.get(3).contains("could not read") || r.get(3).contains("could not look up");
        boolean atRest = r.get(0).equals(last);
        if (r.get(2).equals("mismatch") || sourceFailed
            || (atRest && !r.get(2).equals("match") && !r.get(3).contains("no row key"))) {
          wrong.add(r.toString());
        }
      }
      if (!wrong.isEmpty()) {
        fail("seed " + seed + " on PostgreSQL " + version + ": a verification found the replica different from "
            + "Postgres, or could not compare it:\n  " + String.join("\n  ", wrong) + "\nworkload: "
            + script.toAbsolutePath() + "\nreplay: " + replayCommand());
      }
      return "verified " + tally;
    }

    private String replayCommand() {
      String off = System.getProperty("pg2lite.fuzz.disable");
      return "mvn -B -o verify -pl connector-sink -am -Dtest=NONE -Dsurefire.failIfNoSpecifiedTests=false"
          + " -Dit.test=FuzzIT -Dfailsafe.failIfNoSpecifiedTests=false -Dpg2lite.fuzz.seed=" + seed
          + " -Dpg2lite.fuzz.versions=" + version + " -Dpg2lite.fuzz.ddl=" + detection
          + (off == null ? "" : " -Dpg2lite.fuzz.disable=" + off)
          + (TRANSACTIONS == 60 ? "" : " -Dpg2lite.fuzz.transactions=" + TRANSACTIONS)
          + (LATE_SINK ? " -Dpg2lite.fuzz.lateSink=true" : "")
          + (SPLIT_RECORDS == null ? "" : " -Dpg2lite.fuzz.splitRecords=" + SPLIT_RECORDS);
    }

    private void failOnStatementErrors(WorkloadRunner runner, String part, Path script) {
      if (!runner.failures().isEmpty()) {
        // A generator mistake, not a replication bug: the workload is not the one the seed names.
        System.out.println("fuzz: seed " + seed + " pg" + version + ": " + runner.failures().size()
            + " statements of the " + part + " failed (generator bug):\n  "
            + String.join("\n  ", runner.failures().subList(0, Math.min(5, runner.failures().size()))));
        fail("seed " + seed + ": " + runner.failures().size() + " generated statements failed in Postgres, first: "
            + runner.failures().get(0) + "\nworkload: " + script.toAbsolutePath());
      }
    }

    /** Restarts part of the pipeline and waits until both connectors run again. */
    private void restart(Action.RestartKind kind) {
      switch (kind) {
        case SOURCE -> worker.rest().restart(source);
        case SINK -> {
          if (sinkStarted) {
            worker.rest().restart(sink);
          }
        }
        case WORKER -> {
          String group = worker.groupId();
          worker.close();
          if (FEATURES.contains(FuzzFeature.SNAPSHOT_RESTORES)) {
            // The tasks come back as on a worker without the replica: the sink restores a snapshot.
            deleteReplica();
          }
          worker = stack.newConnectWorker().groupId(group).start();
        }
        case SLOT_LOST -> dropSlotUnderTheSource();
      }
      worker.rest().awaitRunning(source, WAIT);
      if (sinkStarted) {
        worker.rest().awaitRunning(sink, WAIT);
        if (followers != null) {
          followers.restarted(kind.name());
        }
      }
    }

    /**
     * Terminates the source's walsender and drops its slot before the source reconnects (it may
     * take the slot back between the two: then again). The source finds the slot missing and,
     * with resync.auto, starts a new lineage; the workload goes on once its begin is in the log.
     *
     * <p>Why wait: until the new lineage's first-start transaction is in the log, a restart of
     * the source makes it create its slot again, and creating a logical slot waits for every open
     * transaction to end. A later action of the runner may hold one open in a second session while
     * it waits for the restarted source to run: neither would move (seed 3904, batch AY). A
     * real application's transactions end by themselves.
     */
    private void dropSlotUnderTheSource() {
      String slot = db.name() + "_slot";
      String before = lastReplicaVersion();
      Await.until("slot " + slot + " dropped", WAIT, () -> {
        try {
          db.dropSlot(slot); // terminates the walsender first
          return true;
        } catch (SQLException e) {
          if ("55006".equals(e.getSQLState())) {
            return false; // the source took the slot back meanwhile: again
          }
          throw new IllegalStateException(e);
        }
      });
      Await.until("a new lineage in change log " + topic + " after slot " + slot + " was dropped", WAIT,
          () -> !before.equals(lastReplicaVersion()));
    }

    /** The replica version of the change log's last record ("-" for an empty log). */
    private String lastReplicaVersion() {
      try (io.pg2lite.testkit.kafka.TopicReader r = new io.pg2lite.testkit.kafka.TopicReader(
          stack.kafka().bootstrapServers(), topic)) {
        List<org.apache.kafka.clients.consumer.ConsumerRecord<byte[], byte[]>> all = r.readToEnd(Duration.ofSeconds(30));
        return all.isEmpty() ? "-" : header(all.get(all.size() - 1), "pg2lite.replica.version");
      }
    }

    private void startSink(Map<String, String> config) throws InterruptedException {
      worker.rest().putConnector(sink, config);
      worker.rest().awaitRunning(sink, WAIT);
      sinkStarted = true;
      if (followers != null) {
        followers.startReplaying();
      }
    }

    private Connection connectPostgres() {
      try {
        return db.connect();
      } catch (SQLException e) {
        throw new IllegalStateException(e);
      }
    }

    /** Everything of the replica: its file (or link), -wal, -shm, and the files of its lineages beside it. */
    private void deleteReplica() {
      String name = replica.getFileName().toString();
      try (Stream<Path> files = Files.list(replica.getParent())) {
        for (Path p : files.filter(p -> p.getFileName().toString().startsWith(name)).toList()) {
          Files.deleteIfExists(p);
        }
      } catch (java.io.IOException e) {
        throw new java.io.UncheckedIOException("cannot remove the replica for a restore", e);
      }
    }

    /**
     * Replication-stream mode: waits until the source wrote a catalog check after {@code since}
     * (its MBean, this JVM's worker): a schema change the workload's last transactions made with no
     * row change after it is then in the WAL before the marker that follows.
     */
    private void awaitCatalogCheckAfter(long since) throws Exception {
      javax.management.ObjectName mbean = new javax.management.ObjectName("io.pg2lite:type=source,connector="
          + javax.management.ObjectName.quote(source) + ",slot=" + javax.management.ObjectName.quote(db.name() + "_slot"));
      Await.until("a catalog check after the workload", WAIT, () -> {
        try {
          return (Long) java.lang.management.ManagementFactory.getPlatformMBeanServer()
              .getAttribute(mbean, "LastCatalogCheck") > since;
        } catch (javax.management.JMException e) {
          return false; // the task is restarting
        }
      });
    }

    /**
     * Waits until the replica shows marker value {@code n} and no column is still being
     * backfilled; fails at once with the trace if a connector failed. Returns the replica's
     * watermark.
     */
    private String awaitConverged(String marker, long n, Path script) {
      ConnectRestClient rest = worker.rest();
      String[] last = {"nothing read yet"};
      try {
        Await.until("the replica to apply marker " + n + " and finish every backfill", CONVERGE, () -> {
          for (String connector : List.of(source, sink)) {
            ConnectorStatus s = rest.status(connector);
            if (s.failure() != null) {
              throw new AssertionError(s.failure()); // Await retries only RuntimeExceptions
            }
          }
          try (Connection lite = SqliteFiles.open(replica)) {
            long applied = single(lite, "SELECT n FROM " + marker + " WHERE id = 1");
            long pending = single(lite, "SELECT count(*) FROM \"_pg2lite.columns\" WHERE backfill IS NOT NULL");
            last[0] = "marker " + applied + ", " + pending + " columns still backfilling";
            return applied >= n && pending == 0;
          } catch (SQLException e) {
            last[0] = e.getMessage();
            return false;
          }
        });
      } catch (AssertionError e) {
        throw new AssertionError("seed " + seed + " on PostgreSQL " + version + ": " + firstLines(e.getMessage(), 40)
            + "\n(last look at the replica: " + last[0] + ")\nworkload: " + script.toAbsolutePath() + "\nreplay: "
            + replayCommand(), e);
      }
      try (Connection lite = SqliteFiles.open(replica); Statement s = lite.createStatement();
          ResultSet rs = s.executeQuery("SELECT watermark FROM \"_pg2lite.state\"")) {
        return rs.next() ? rs.getString(1) : null;
      } catch (SQLException e) {
        throw new IllegalStateException(e);
      }
    }

    private static long single(Connection c, String sql) throws SQLException {
      try (Statement s = c.createStatement(); ResultSet rs = s.executeQuery(sql)) {
        return rs.next() ? rs.getLong(1) : -1;
      }
    }

    private static String firstLines(String s, int lines) {
      String[] all = s == null ? new String[0] : s.split("\n");
      return String.join("\n", java.util.Arrays.copyOf(all, Math.min(lines, all.length)));
    }

    @Override
    public void close() throws Exception {
      Exception first = null;
      if (followers != null) {
        followers.close();
      }
      if (worker != null) {
        try {
          for (String c : List.of(source, sink)) {
            if (worker.rest().connectors().contains(c)) {
              worker.rest().delete(c);
            }
          }
          Await.until("connectors of seed " + seed + " deleted", WAIT,
              () -> worker.rest().connectors().stream().noneMatch(c -> c.equals(source) || c.equals(sink)));
        } catch (RuntimeException | AssertionError e) {
          System.out.println("fuzz: cleanup of seed " + seed + ": " + e.getMessage());
        }
        worker.close();
      }
      try {
        db.close();
      } catch (SQLException e) {
        first = e;
      }
      files.close();
      if (first != null) {
        throw first;
      }
    }
  }
}
