package io.pg2lite.quickstart;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pg2lite.testkit.TestStack;
import io.pg2lite.testkit.connect.ConnectRestClient;
import io.pg2lite.testkit.connect.WorkerProcess;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The plugin archives on a worker of another Kafka Connect version than the build's: the
 * connect-worker module's copy of {@code connect-runtime} {@code connect.compat.version} (the
 * oldest supported by default; QuickstartIT covers the build's own, the newest). Both connectors
 * from the example configs, exactly-once source support on (the source's config requires it), the
 * quickstart's workload without followers, the replica equal to Postgres.
 *
 * <p>With {@code -Dpg2lite.compat.refused=true} (scripts/connect-matrix, for a version below the
 * supported range) it checks the other side instead: the worker loads both plugins but refuses
 * them through its REST API with a message naming its version, at validate and so at create, where
 * an unguarded plugin would fail later with a {@code NoSuchMethodError}.
 */
class ConnectVersionIT {
  private static final Path PLUGINS = Path.of(System.getProperty("pg2lite.pluginPath", "target/plugins"));
  private static final Path ETC = Path.of(System.getProperty("pg2lite.etc", "../etc"));
  private static final Path WORKER_LIBS = Path.of(System.getProperty("pg2lite.workerLibs",
      "../connect-worker/target/lib"));
  private static final String VERSION = System.getProperty("pg2lite.compat.version", "");
  private static final boolean REFUSED = Boolean.getBoolean("pg2lite.compat.refused");

  @Test
  void thePluginArchivesRunOnTheWorkerOrAreRefusedNamingItsVersion() throws Exception {
    assertTrue(VERSION.matches("\\d+\\.\\d+\\.\\d+.*"), "pg2lite.compat.version is set by the build: " + VERSION);
    assertTrue(Files.exists(WORKER_LIBS.resolve("connect-runtime-" + VERSION + ".jar")),
        "the worker's classpath holds connect-runtime " + VERSION + ": " + WORKER_LIBS);
    if (REFUSED) {
      refused();
    } else {
      replicates();
    }
  }

  private void replicates() throws Exception {
    assertEquals("enabled", new ExampleConfigs(ETC.toAbsolutePath()).worker().getProperty("exactly.once.source.support"));
    ByteArrayOutputStream log = new ByteArrayOutputStream();
    PrintStream out = new PrintStream(log, true, StandardCharsets.UTF_8);
    Quickstart.Result r;
    Quickstart quickstart = new Quickstart(PLUGINS.toAbsolutePath(), ETC.toAbsolutePath(), out, false,
        WORKER_LIBS.toAbsolutePath());
    try {
      r = quickstart.run(Duration.ofSeconds(10));
    } finally {
      System.out.print(log.toString(StandardCharsets.UTF_8));
    }
    String printed = log.toString(StandardCharsets.UTF_8);
    assertTrue(printed.contains("  Kafka Connect " + VERSION + "\n"), "the worker ran Connect " + VERSION + ": " + printed);
    assertTrue(r.replicaEqualsPostgres(), "replica differs: " + r.difference());
    assertTrue(printed.contains("schema change reached the replica: customer has a new column tier"), printed);
    assertTrue(printed.contains("the replica has a new table orders"), printed);
    // The tasks' metrics reach the worker's registry where it has plugin metrics (KIP-877, 4.1+),
    // found by reflection under the worker's plugin isolation; elsewhere they stay in JMX quietly.
    String workerLog = quickstart.workerLog();
    String[] v = VERSION.split("\\.");
    boolean pluginMetrics = Integer.parseInt(v[0]) > 4 || Integer.parseInt(v[0]) == 4 && Integer.parseInt(v[1]) >= 1;
    long published = workerLog.lines().filter(l -> l.contains("metrics are also in the worker's registry")).count();
    assertTrue(pluginMetrics ? published >= 2 : published == 0,
        "source and sink tasks publish plugin metrics on 4.1+ only: " + published + " on " + VERSION);
    assertTrue(!workerLog.contains("Cannot publish the task's metrics"), "no failed publication in the worker log");
  }

  private void refused() throws Exception {
    ExampleConfigs configs = new ExampleConfigs(ETC.toAbsolutePath());
    Path work = Files.createTempDirectory("pg2lite-connect-version");
    try (TestStack stack = TestStack.create().quiet();
        WorkerProcess worker = WorkerProcess.start(configs.worker(), Map.of("bootstrap.servers",
            stack.kafka().bootstrapServers(), "plugin.path", PLUGINS.toAbsolutePath().toString()), Map.of(), "512m",
            work, List.of(), WORKER_LIBS.toAbsolutePath())) {
      assertEquals(VERSION, worker.version());
      assertTrue(worker.rest().connectorPlugins().containsAll(List.of("io.pg2lite.source.Pg2liteSourceConnector",
          "io.pg2lite.sink.Pg2liteSinkConnector")), "the worker loads both plugins");
      for (String file : List.of(ExampleConfigs.SOURCE_FILE, ExampleConfigs.SINK_FILE)) {
        ExampleConfigs.Connector c = configs.connector(file);
        String expected = "pg2lite needs Kafka Connect 3.7 or newer";
        List<String> errors = worker.rest().validate(c.config().get("connector.class"), c.config())
            .getOrDefault("kafka.connect.version", List.of());
        assertTrue(errors.size() == 1 && errors.get(0).startsWith(expected)
            && errors.get(0).contains("this worker runs " + VERSION + "."), c.name() + " at validate: " + errors);
        ConnectRestClient.RestException e = assertThrows(ConnectRestClient.RestException.class,
            () -> worker.rest().putConnector(c.name(), c.config()));
        assertEquals(400, e.status(), e.getMessage());
        assertTrue(e.getMessage().contains("this worker runs " + VERSION + "."), c.name() + " at create: " + e.getMessage());
      }
      assertTrue(!worker.log().contains("NoSuchMethodError") && !worker.log().contains("NoClassDefFoundError"),
          "no linkage error in the worker's log");
    }
  }
}
