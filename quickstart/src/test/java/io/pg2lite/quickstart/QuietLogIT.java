package io.pg2lite.quickstart;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pg2lite.testkit.TestStack;
import io.pg2lite.testkit.connect.ConnectorStatus;
import io.pg2lite.testkit.connect.WorkerProcess;
import io.pg2lite.testkit.fuzz.Action;
import io.pg2lite.testkit.fuzz.FuzzFeature;
import io.pg2lite.testkit.fuzz.ReplicaComparator;
import io.pg2lite.testkit.fuzz.Workload;
import io.pg2lite.testkit.fuzz.WorkloadGenerator;
import io.pg2lite.testkit.fuzz.WorkloadRunner;
import io.pg2lite.testkit.postgres.TestDatabase;
import io.pg2lite.testkit.support.Await;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * Issue 30's rule for the whole product: a healthy pipeline logs no WARN or ERROR, and its INFO
 * lines grow with events an operator cares about, never with rows or Relation messages.
 *
 * <p>The packaged plugins run on a worker process of their own with the {@code etc/} configs (as
 * {@link QuickstartIT}), through a randomized workload with schema changes (DDL on every kind the
 * generator knows, tables added to the publication and backfilled) and reconnects: REST restarts
 * of either connector and the source's walsender terminated by Postgres. Every reconnect is a
 * fault that heals by itself, so it may log INFO, never WARN. The worker logs the full logger names
 * of pg2lite and Debezium at INFO, so the test sees every line they write.
 *
 * <p>Then a steady phase writes rows only (no DDL, no reconnect): pg2lite's and Debezium's INFO
 * lines must not grow at all.
 */
class QuietLogIT {
  private static final Path PLUGINS = Path.of(System.getProperty("pg2lite.pluginPath", "target/plugins"));
  private static final Path ETC = Path.of(System.getProperty("pg2lite.etc", "../etc"));
  private static final Duration WAIT = Duration.ofSeconds(120);
  /** Lines of the worker log written by pg2lite or Debezium: {@code HH:mm:ss.SSS [thread] LEVEL logger - text}. */
  private static final java.util.regex.Pattern LINE = java.util.regex.Pattern.compile(
      "^\\d\\d:\\d\\d:\\d\\d\\.\\d{3} \\[[^\\]]*\\] (TRACE|DEBUG|INFO|WARN|ERROR) (io\\.(?:pg2lite|debezium)\\.\\S*) - .*");
  /** INFO lines one event (a start, a restart, a schema change, a backfill) may cost at most. */
  private static final int INFO_PER_EVENT = 12;

  @Test
  void aHealthyPipelineLogsNoWarningAndNoLinePerRow() throws Exception {
    Path work = Files.createTempDirectory("pg2lite-quiet-log");
    Path replicas = Files.createDirectories(work.resolve("replicas"));
    ExampleConfigs configs = new ExampleConfigs(ETC.toAbsolutePath());
    Workload workload = WorkloadGenerator.generate(30, 60, FuzzFeature.allExcept("SNAPSHOT_RESTORES"));
    try (TestStack stack = TestStack.create().quiet()) {
      TestDatabase db = stack.postgres().newDatabase("quiet");
      try (WorkloadRunner setup = new WorkloadRunner(db.jdbcUrl(), stack.postgres().user(),
          stack.postgres().password(), k -> { })) {
        setup.run(workload.setup());
        assertEquals(List.of(), setup.failures(), "setup statements");
      }
      // A table keyed by a unique index, not a primary key: valid, and so no reason for a warning.
      db.execute("CREATE TABLE quiet_uidx (id int NOT NULL, v text)",
          "CREATE UNIQUE INDEX quiet_uidx_id ON quiet_uidx (id)",
          "ALTER TABLE quiet_uidx REPLICA IDENTITY USING INDEX quiet_uidx_id",
          "INSERT INTO quiet_uidx SELECT g, 'v' || g FROM generate_series(1, 100) g",
          "ALTER PUBLICATION " + workload.publication() + " ADD TABLE quiet_uidx");
      Map<String, String> env = ExampleConfigs.environment(stack, db, replicas);
      Map<String, String> overrides = Map.of("bootstrap.servers", stack.kafka().bootstrapServers(),
          "plugin.path", PLUGINS.toAbsolutePath().toString());
      List<String> logging = List.of("-Dorg.slf4j.simpleLogger.showShortLogName=false",
          "-Dorg.slf4j.simpleLogger.log.io.debezium=info", "-Dorg.slf4j.simpleLogger.log.io.pg2lite=info");
      try (WorkerProcess worker = WorkerProcess.start(configs.worker(), overrides, env, "768m", work, logging)) {
        ExampleConfigs.Connector source = configs.connector(ExampleConfigs.SOURCE_FILE);
        ExampleConfigs.Connector sink = configs.connector(ExampleConfigs.SINK_FILE);
        Map<String, String> sourceConfig = new HashMap<>(source.config());
        sourceConfig.put("publication.name", workload.publication());
        worker.rest().putConnector(source.name(), sourceConfig);
        worker.rest().awaitRunning(source.name(), WAIT);
        worker.rest().putConnector(sink.name(), sink.config());
        worker.rest().awaitRunning(sink.name(), WAIT);
        Path replica = replicas.resolve("replica.db");

        int[] events = {2}; // the two connectors' starts
        long marker;
        try (WorkloadRunner runner = new WorkloadRunner(db.jdbcUrl(), stack.postgres().user(),
            stack.postgres().password(), kind -> {
              events[0]++;
              switch (kind) {
                case SOURCE -> worker.rest().restart(source.name());
                case SINK -> worker.rest().restart(sink.name());
                case WORKER -> terminateWalsender(db); // the source reconnects by itself
              }
              worker.rest().awaitRunning(source.name(), WAIT);
              worker.rest().awaitRunning(sink.name(), WAIT);
            })) {
          runner.run(workload.actions());
          assertEquals(List.of(), runner.failures(), "workload statements");
          terminateWalsender(db);
          events[0]++;
          marker = runner.bumpMarker(workload.marker());
        }
        awaitMarker(worker, List.of(source.name(), sink.name()), replica, workload.marker(), marker);
        try (Connection pg = db.connect(); Connection lite = DriverManager.getConnection("jdbc:sqlite:" + replica)) {
          ReplicaComparator.Result result = new ReplicaComparator(10).compare(pg, workload.publication(), lite);
          assertTrue(result.same(), "replica equals Postgres: " + result.differences());
        }
        long ddl = workload.actions().stream().filter(a -> a instanceof Action.Sql s
            && s.sql().matches("(?is)\\s*(ALTER|CREATE|DROP|TRUNCATE)\\b.*")).count();
        LogCount afterEvents = LogCount.of(worker.log());
        System.out.printf("quiet log: %d events, %d DDL statements: %s%n", events[0], ddl, afterEvents);
        assertEquals(0, afterEvents.warnings().size(), "WARN/ERROR lines of pg2lite and Debezium in a healthy pipeline: "
            + afterEvents.firstWarnings());
        long bound = INFO_PER_EVENT * (events[0] + ddl);
        assertTrue(afterEvents.info() <= bound, "INFO lines of pg2lite and Debezium: " + afterEvents.info()
            + ", more than " + INFO_PER_EVENT + " per event (" + (events[0] + ddl) + " events)");

        // The steady phase: rows only. Not one more INFO line.
        try (Connection pg = db.connect(); Statement s = pg.createStatement()) {
          for (int i = 0; i < 300; i++) {
            s.execute("UPDATE quiet_uidx SET v = 'steady " + i + "' WHERE id = " + (1 + i % 100));
            s.execute("UPDATE " + workload.marker() + " SET n = n + 1 WHERE id = 1");
          }
          marker += 300;
        }
        awaitMarker(worker, List.of(source.name(), sink.name()), replica, workload.marker(), marker);
        LogCount afterRows = LogCount.of(worker.log());
        System.out.printf("quiet log: after 300 row transactions: %s%n", afterRows);
        assertEquals(0, afterRows.warnings().size(), "WARN/ERROR lines after the steady phase: " + afterRows.firstWarnings());
        assertEquals(afterEvents.info(), afterRows.info(),
            "INFO lines of pg2lite and Debezium grew with rows: " + afterRows.infoSince(afterEvents.info()));
      }
    }
  }

  /**
   * Ends the source's replication connection from the Postgres side, as a Postgres restart or a
   * dropped connection would, once the source holds its slot.
   */
  private static void terminateWalsender(TestDatabase db) {
    Await.until("the source's walsender terminated", WAIT, () -> {
      try (Connection c = db.connect(); Statement s = c.createStatement(); ResultSet rs = s.executeQuery(
          "SELECT count(*) FILTER (WHERE pg_terminate_backend(active_pid)) FROM pg_replication_slots"
              + " WHERE active_pid IS NOT NULL AND database = current_database()")) {
        return rs.next() && rs.getInt(1) > 0;
      } catch (SQLException e) {
        return false;
      }
    });
  }

  private static void awaitMarker(WorkerProcess worker, List<String> connectors, Path replica, String marker, long n) {
    Await.until("the replica to apply marker " + n + " and finish every backfill", Duration.ofSeconds(180), () -> {
      for (String connector : connectors) {
        ConnectorStatus s = worker.rest().status(connector);
        if (s.failure() != null) {
          throw new AssertionError(s.failure());
        }
      }
      try (Connection lite = DriverManager.getConnection("jdbc:sqlite:" + replica);
          Statement s = lite.createStatement()) {
        try (ResultSet rs = s.executeQuery("SELECT n FROM " + marker + " WHERE id = 1")) {
          if (!rs.next() || rs.getLong(1) < n) {
            return false;
          }
        }
        try (ResultSet rs = s.executeQuery("SELECT count(*) FROM \"_pg2lite.columns\" WHERE backfill IS NOT NULL")) {
          return rs.next() && rs.getLong(1) == 0;
        }
      } catch (SQLException e) {
        return false;
      }
    });
  }

  /** pg2lite's and Debezium's lines in a worker log: the WARN and ERROR lines, and the INFO ones. */
  record LogCount(List<String> warnings, List<String> infoLines) {
    static LogCount of(String log) {
      List<String> warnings = new java.util.ArrayList<>();
      List<String> info = new java.util.ArrayList<>();
      for (String line : log.split("\n")) {
        java.util.regex.Matcher m = LINE.matcher(line);
        if (!m.matches()) {
          continue;
        }
        switch (m.group(1)) {
          case "WARN", "ERROR" -> warnings.add(line);
          case "INFO" -> info.add(line);
          default -> { }
        }
      }
      return new LogCount(warnings, info);
    }

    /** The first WARN/ERROR lines, for a failure message a person can read. */
    String firstWarnings() {
      return "\n" + String.join("\n", warnings.subList(0, Math.min(10, warnings.size())))
          + (warnings.size() > 10 ? "\n… " + (warnings.size() - 10) + " more" : "");
    }

    int info() {
      return infoLines.size();
    }

    String infoSince(int from) {
      return String.join("\n", infoLines.subList(Math.min(from, infoLines.size()), infoLines.size()));
    }

    @Override
    public String toString() {
      Map<String, Integer> byLogger = new java.util.TreeMap<>();
      for (String line : infoLines) {
        java.util.regex.Matcher m = LINE.matcher(line);
        if (m.matches()) {
          byLogger.merge(m.group(2), 1, Integer::sum);
        }
      }
      return warnings.size() + " WARN/ERROR, " + infoLines.size() + " INFO " + byLogger;
    }
  }
}
