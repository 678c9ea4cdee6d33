package io.pg2lite.testkit.connect;

import io.pg2lite.testkit.support.Await;
import java.io.IOException;
import java.net.ServerSocket;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A Connect worker in a JVM of its own, with a fixed heap and a GC log, for benchmarks: its heap
 * is the connector's plus Connect's, nothing of the broker's or the bench's. It runs
 * {@code ConnectDistributed} on this JVM's classpath, or on a directory of jars of another Connect
 * version.
 */
public final class WorkerProcess implements AutoCloseable, WorkerHandle {
  private static final Pattern GC_LINE = Pattern.compile("(\\d+)M->(\\d+)M\\((\\d+)M\\)");

  private final Process process;
  private final ConnectRestClient rest;
  private final URI url;
  private final Path gcLog;

  private final String groupId;
  private final Path log;

  private WorkerProcess(Process process, URI url, Path gcLog, String groupId, Path log) {
    this.process = process;
    this.rest = new ConnectRestClient(url);
    this.url = url;
    this.gcLog = gcLog;
    this.groupId = groupId;
    this.log = log;
  }

  /** The worker's output (its log lines, the tasks' included). */
  public String log() throws IOException {
    return Files.readString(log);
  }

  /** The Connect cluster (group.id) the worker belongs to. */
  @Override
  public String groupId() {
    return groupId;
  }

  /**
   * Kills the worker with SIGKILL, as a crash or the OOM killer would: no task stops, no Kafka
   * transaction is aborted, no offset is flushed. Returns once the process is gone.
   */
  public void kill() throws InterruptedException {
    process.destroyForcibly();
    process.waitFor(30, TimeUnit.SECONDS);
  }

  /** Starts a distributed worker with {@code -Xmx<maxHeap>} on the given broker. */
  public static WorkerProcess start(String bootstrapServers, String maxHeap, Path workDir) throws IOException {
    return start(bootstrapServers, maxHeap, workDir, true);
  }

  /** As {@link #start(String, String, Path)}, with exactly-once source support on or off. */
  public static WorkerProcess start(String bootstrapServers, String maxHeap, Path workDir, boolean exactlyOnce)
      throws IOException {
    return start(bootstrapServers, maxHeap, workDir, exactlyOnce, null);
  }

  /**
   * As {@link #start(String, String, Path, boolean)}, joining the Connect cluster {@code group}
   * (its config, offset and status topics): a worker started again in the group of one that was
   * killed takes over its connectors with their stored offsets. Null: a new group of its own.
   */
  public static WorkerProcess start(String bootstrapServers, String maxHeap, Path workDir, boolean exactlyOnce,
      String groupId) throws IOException {
    return start(bootstrapServers, maxHeap, workDir, exactlyOnce, groupId, Map.of());
  }

  /**
   * As {@link #start(String, String, Path, boolean, String)}, with {@code environment} added to the
   * process's environment and the {@code env} config provider on, so that connector configs can
   * say {@code ${env:NAME}} and each worker resolve it its own way (a replica directory per worker).
   */
  public static WorkerProcess start(String bootstrapServers, String maxHeap, Path workDir, boolean exactlyOnce,
      String groupId, Map<String, String> environment) throws IOException {
    return start(bootstrapServers, maxHeap, workDir, exactlyOnce, groupId, environment, List.of());
  }

  /**
   * As {@link #start(String, String, Path, boolean, String, Map)}, with {@code jvmOptions} on the
   * worker's command line before its main class (a test seam's system property, say).
   */
  public static WorkerProcess start(String bootstrapServers, String maxHeap, Path workDir, boolean exactlyOnce,
      String groupId, Map<String, String> environment, List<String> jvmOptions) throws IOException {
    int port;
    try (ServerSocket s = new ServerSocket(0)) {
      port = s.getLocalPort();
    }
    String group = groupId != null ? groupId : "pg2lite-bench-" + port;
    Path props = workDir.resolve("worker-" + port + ".properties");
    Files.writeString(props, String.join("\n",
        "bootstrap.servers=" + bootstrapServers, "group.id=" + group,
        "config.storage.topic=" + group + "-configs", "offset.storage.topic=" + group + "-offsets",
        "status.storage.topic=" + group + "-status", "config.storage.replication.factor=1",
        "offset.storage.replication.factor=1", "status.storage.replication.factor=1",
        "offset.storage.partitions=1", "status.storage.partitions=1",
        "key.converter=org.apache.kafka.connect.converters.ByteArrayConverter",
        "value.converter=org.apache.kafka.connect.converters.ByteArrayConverter",
        "listeners=http://127.0.0.1:" + port,
        "exactly.once.source.support=" + (exactlyOnce ? "enabled" : "disabled"),
        "plugin.discovery=service_load", "offset.flush.interval.ms=1000", "scheduled.rebalance.max.delay.ms=0",
        "config.providers=env",
        "config.providers.env.class=org.apache.kafka.common.config.provider.EnvVarConfigProvider"));
    Path gc = workDir.resolve("worker-" + port + "-gc.log");
    List<String> cmd = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
        "-Xmx" + maxHeap, "-XX:+ExitOnOutOfMemoryError", "-Xlog:gc:file=" + gc));
    cmd.addAll(jvmOptions);
    cmd.addAll(List.of("-cp", classpath(), "org.apache.kafka.connect.cli.ConnectDistributed", props.toString()));
    String jfr = System.getProperty("pg2lite.bench.jfr");
    if (jfr != null) { // profile the worker: -Dpg2lite.bench.jfr=/tmp/worker.jfr
      // 1 ms samples: the profile's 10-20 ms leaves too few samples of a short drain to rank stages.
      cmd.add(1, "-XX:StartFlightRecording=filename=" + jfr
          + ",settings=profile,jdk.ExecutionSample#period=1ms,dumponexit=true"
          + System.getProperty("pg2lite.bench.jfr.extra", ""));
    }
    Path log = workDir.resolve("worker-" + port + ".log");
    ProcessBuilder pb = new ProcessBuilder(cmd).redirectErrorStream(true).redirectOutput(log.toFile());
    pb.environment().putAll(environment);
    Process p = pb.start();
    // A bench killed with Ctrl-C must not leave its worker behind.
    Runtime.getRuntime().addShutdownHook(new Thread(p::destroyForcibly, "pg2lite-worker-reaper"));
    WorkerProcess w = new WorkerProcess(p, URI.create("http://127.0.0.1:" + port + "/"), gc, group, log);
    Await.until("worker process REST API on port " + port, Duration.ofSeconds(90), () -> {
      if (!p.isAlive()) {
        throw new AssertionError("worker process exited with " + p.exitValue() + "; see " + workDir);
      }
      w.rest.connectors();
      return true;
    });
    return w;
  }

  /**
   * Starts a distributed worker from {@code workerProperties} (for example the project's
   * {@code etc/connect-distributed-eos.properties}), with {@code overrides} applied (bootstrap
   * servers, plugin.path, ...), a free REST port, and {@code environment} added to the process's
   * environment, where {@code ${env:NAME}} config values resolve. Its output goes to
   * {@code workDir/worker.log}.
   */
  public static WorkerProcess start(java.util.Properties workerProperties, Map<String, String> overrides,
      Map<String, String> environment, String maxHeap, Path workDir) throws IOException {
    return start(workerProperties, overrides, environment, maxHeap, workDir, List.of());
  }

  /**
   * As {@link #start(java.util.Properties, Map, Map, String, Path)}, with {@code jvmOptions} on the
   * worker's command line before its main class (a logger's level as a system property, say).
   */
  public static WorkerProcess start(java.util.Properties workerProperties, Map<String, String> overrides,
      Map<String, String> environment, String maxHeap, Path workDir, List<String> jvmOptions) throws IOException {
    return start(workerProperties, overrides, environment, maxHeap, workDir, jvmOptions, null);
  }

  /**
   * As {@link #start(java.util.Properties, Map, Map, String, Path, List)}, on the jars of
   * {@code workerLibs} instead of this JVM's classpath (null: this JVM's): a worker of another Kafka
   * Connect version than the build's, to run the plugin archives on (quickstart's ConnectVersionIT).
   */
  public static WorkerProcess start(java.util.Properties workerProperties, Map<String, String> overrides,
      Map<String, String> environment, String maxHeap, Path workDir, List<String> jvmOptions, Path workerLibs)
      throws IOException {
    String cp = classpath();
    if (workerLibs != null) {
      if (!Files.isDirectory(workerLibs)) {
        throw new IllegalArgumentException("no worker classpath at " + workerLibs);
      }
      cp = workerLibs.toAbsolutePath().resolve("*").toString(); // java's own wildcard: every jar there
    }
    int port;
    try (ServerSocket s = new ServerSocket(0)) {
      port = s.getLocalPort();
    }
    java.util.Properties props = new java.util.Properties();
    props.putAll(workerProperties);
    props.putAll(overrides);
    props.setProperty("listeners", "http://127.0.0.1:" + port);
    Path file = workDir.resolve("worker.properties");
    try (java.io.Writer w = Files.newBufferedWriter(file)) {
      props.store(w, "pg2lite worker");
    }
    Path gc = workDir.resolve("worker-gc.log");
    List<String> cmd = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
        "-Xmx" + maxHeap, "-Xlog:gc:file=" + gc));
    cmd.addAll(jvmOptions);
    cmd.addAll(List.of("-cp", cp, "org.apache.kafka.connect.cli.ConnectDistributed", file.toString()));
    ProcessBuilder pb = new ProcessBuilder(cmd).redirectErrorStream(true)
        .redirectOutput(workDir.resolve("worker.log").toFile());
    pb.environment().putAll(environment);
    Process p = pb.start();
    Runtime.getRuntime().addShutdownHook(new Thread(p::destroyForcibly, "pg2lite-worker-reaper"));
    WorkerProcess w = new WorkerProcess(p, URI.create("http://127.0.0.1:" + port + "/"), gc,
        props.getProperty("group.id"), workDir.resolve("worker.log"));
    Await.until("worker process REST API on port " + port, Duration.ofSeconds(120), () -> {
      if (!p.isAlive()) {
        throw new AssertionError("worker process exited with " + p.exitValue() + "; see " + workDir.resolve("worker.log"));
      }
      w.rest.connectors();
      return true;
    });
    return w;
  }

  /**
   * This JVM's application classpath: the context class loader's URLs when it has them (under
   * {@code mvn exec:java}, where {@code java.class.path} is only Maven's launcher), else
   * {@code java.class.path}.
   */
  public static String classpath() {
    ClassLoader cl = Thread.currentThread().getContextClassLoader();
    if (cl instanceof java.net.URLClassLoader u && u.getURLs().length > 0) {
      StringBuilder sb = new StringBuilder();
      for (java.net.URL url : u.getURLs()) {
        try {
          sb.append(sb.length() == 0 ? "" : java.io.File.pathSeparator).append(Path.of(url.toURI()));
        } catch (java.net.URISyntaxException e) {
          throw new IllegalStateException("bad classpath entry " + url, e);
        }
      }
      return sb.toString();
    }
    return System.getProperty("java.class.path");
  }

  /**
   * The Kafka Connect version the worker reports ({@code GET /}): which runtime a test really ran
   * the plugins on, whatever classpath it was given.
   */
  public String version() throws IOException, InterruptedException {
    java.net.http.HttpResponse<String> r = java.net.http.HttpClient.newHttpClient().send(
        java.net.http.HttpRequest.newBuilder(url).timeout(Duration.ofSeconds(30)).build(),
        java.net.http.HttpResponse.BodyHandlers.ofString());
    Matcher m = Pattern.compile("\"version\"\\s*:\\s*\"([^\"]+)\"").matcher(r.body());
    if (r.statusCode() != 200 || !m.find()) {
      throw new IOException("GET " + url + " answered " + r.statusCode() + ": " + r.body());
    }
    return m.group(1);
  }

  @Override
  public ConnectRestClient rest() {
    return rest;
  }

  /** The worker's Connect threads, from {@code jcmd}; empty once the process is gone. */
  @Override
  public String threads() {
    if (!process.isAlive()) {
      return "(worker process " + process.pid() + " is gone)";
    }
    try {
      return ConnectThreads.ofProcess(process.pid());
    } catch (Exception e) {
      return "(could not list the threads of " + process.pid() + ": " + e + ")";
    }
  }

  /** {@code host:port} of the REST API: the {@code worker_id} the status API shows for its tasks. */
  public String workerId() {
    return url.getHost() + ":" + url.getPort();
  }

  public long pid() {
    return process.pid();
  }

  /** Lines in the GC log so far: pass to {@link #peakHeapMb(int)} to measure one phase. */
  public int gcLogLines() throws IOException {
    return Files.exists(gcLog) ? Files.readAllLines(gcLog).size() : 0;
  }

  /**
   * The largest heap occupancy the GC log shows before a collection, from line {@code fromLine}
   * on, in MB (0 when no collection happened).
   */
  public long peakHeapMb(int fromLine) throws IOException {
    return maxOfGcLog(fromLine, 1);
  }

  /**
   * The largest heap occupancy the GC log shows after a collection, from line {@code fromLine}
   * on, in MB: what the worker still held (its live set plus what that collection left), where
   * {@link #peakHeapMb} also counts garbage not yet collected.
   */
  public long peakLiveHeapMb(int fromLine) throws IOException {
    return maxOfGcLog(fromLine, 2);
  }

  /**
   * Collects the worker's heap now ({@code jcmd <pid> GC.run}: a full collection, stopping the
   * worker for as long as it takes, tens of milliseconds on a heap of a few hundred MB) and
   * returns what it still held after it, in MB: its live set. {@link #peakLiveHeapMb} reads the
   * collections G1 chose, whose figure also counts old objects no marking cycle has found dead
   * yet, and that part grows until the next cycle. Returns -1 when the worker does not answer.
   */
  public long liveHeapMbNow() throws IOException, InterruptedException {
    int from = gcLogLines();
    Process jcmd = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "jcmd").toString(),
        Long.toString(process.pid()), "GC.run").redirectErrorStream(true).redirectOutput(ProcessBuilder.Redirect.DISCARD)
        .start();
    if (!jcmd.waitFor(30, TimeUnit.SECONDS) || jcmd.exitValue() != 0) {
      jcmd.destroyForcibly();
      return -1;
    }
    for (int look = 0; look < 50; look++) { // jcmd returns once the collection is done; its line may lag a little
      List<String> lines = Files.readAllLines(gcLog);
      for (int i = lines.size() - 1; i >= Math.min(from, lines.size()); i--) {
        Matcher m = GC_LINE.matcher(lines.get(i));
        if (lines.get(i).contains("Pause Full") && m.find()) {
          return Long.parseLong(m.group(2));
        }
      }
      Thread.sleep(100);
    }
    return -1;
  }

  private long maxOfGcLog(int fromLine, int group) throws IOException {
    long peak = 0;
    if (!Files.exists(gcLog)) {
      return 0;
    }
    List<String> lines = Files.readAllLines(gcLog);
    for (String line : lines.subList(Math.min(fromLine, lines.size()), lines.size())) {
      Matcher m = GC_LINE.matcher(line);
      if (m.find()) {
        peak = Math.max(peak, Long.parseLong(m.group(group)));
      }
    }
    return peak;
  }

  /**
   * CPU time the worker process has used so far, all threads, in nanoseconds (from the operating
   * system): differences of two readings give the worker's CPU for a phase.
   */
  public long cpuNanos() {
    return process.info().totalCpuDuration().map(java.time.Duration::toNanos)
        .orElseThrow(() -> new IllegalStateException("the OS does not report the worker's CPU time"));
  }

  /**
   * CPU time of each live worker thread so far, in milliseconds, keyed by thread id, from
   * {@code /proc} (Linux only; empty elsewhere). JIT compiler and GC threads are native, so a JFR
   * profile misses them; this does not. See {@link #cpuByThreadGroup} for a phase's share.
   */
  public Map<Long, ThreadCpu> threadCpuMillis() throws IOException {
    Map<Long, ThreadCpu> out = new java.util.HashMap<>();
    Path tasks = Path.of("/proc", Long.toString(process.pid()), "task");
    if (!Files.isDirectory(tasks)) {
      return out;
    }
    long tick = 10; // ms per clock tick: USER_HZ is 100 on Linux
    try (var dirs = Files.list(tasks)) {
      for (Path t : (Iterable<Path>) dirs::iterator) {
        String stat;
        try {
          stat = Files.readString(t.resolve("stat"));
        } catch (IOException gone) {
          continue; // the thread ended
        }
        int open = stat.indexOf('(');
        int close = stat.lastIndexOf(')');
        String[] f = stat.substring(close + 2).split(" ");
        long ticks = Long.parseLong(f[11]) + Long.parseLong(f[12]); // utime, stime
        out.put(Long.parseLong(t.getFileName().toString()), new ThreadCpu(stat.substring(open + 1, close), ticks * tick));
      }
    }
    return out;
  }

  /** One thread's name (as the kernel keeps it: 15 characters) and CPU time in milliseconds. */
  public record ThreadCpu(String name, long millis) {}

  /**
   * CPU milliseconds each thread group used between two {@link #threadCpuMillis} readings, by
   * thread id (Connect renames pooled threads between tasks, so names alone would misattribute),
   * grouped by the later name with digits folded ({@code GC Thread#0} and {@code #1} are one group).
   */
  public static Map<String, Long> cpuByThreadGroup(Map<Long, ThreadCpu> from, Map<Long, ThreadCpu> to) {
    Map<String, Long> out = new java.util.TreeMap<>();
    to.forEach((tid, now) -> {
      ThreadCpu before = from.get(tid);
      long used = now.millis() - (before == null ? 0 : before.millis());
      out.merge(now.name().replaceAll("[0-9]+", "#"), used, Long::sum);
    });
    return out;
  }

  /** Whether the worker still runs: it exits when it runs out of heap ({@code -XX:+ExitOnOutOfMemoryError}). */
  public boolean alive() {
    return process.isAlive();
  }

  @Override
  public void close() throws InterruptedException {
    process.destroy();
    if (!process.waitFor(30, TimeUnit.SECONDS)) {
      process.destroyForcibly();
    }
  }
}
