package io.pg2lite.testkit.connect;

import io.pg2lite.testkit.support.Await;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * A Connect cluster of worker processes ({@link WorkerProcess}) in one group, as production runs
 * Connect: tasks spread over the workers, and when one dies the others take its tasks over at the
 * next rebalance. A test may kill any worker; {@link #rest()} answers from one still alive.
 */
public final class WorkerGroup implements WorkerHandle, AutoCloseable {
  private final Properties properties;
  private final Path workDir;
  private final String maxHeap;
  private final List<String> jvmOptions;
  private final List<WorkerProcess> workers = new CopyOnWriteArrayList<>();
  private int started;

  private WorkerGroup(Properties properties, Path workDir, String maxHeap, List<String> jvmOptions) {
    this.properties = properties;
    this.jvmOptions = List.copyOf(jvmOptions);
    this.workDir = workDir;
    this.maxHeap = maxHeap;
  }

  /**
   * Starts {@code count} workers from {@code properties} (which name the group), each in
   * {@code workDir/worker-N}, with {@code jvmOptions} on each command line (a test hold, say).
   */
  public static WorkerGroup start(Properties properties, Path workDir, String maxHeap, int count,
      List<String> jvmOptions) throws Exception {
    WorkerGroup g = new WorkerGroup(properties, workDir, maxHeap, jvmOptions);
    try {
      for (int i = 0; i < count; i++) {
        g.startWorker();
      }
    } catch (Exception e) {
      g.close();
      throw e;
    }
    return g;
  }

  /** Starts one more worker in the group (to replace one killed, say) and returns it once its REST API answers. */
  public synchronized WorkerProcess startWorker() throws Exception {
    Path dir = Files.createDirectories(workDir.resolve("worker-" + (++started)));
    WorkerProcess w = WorkerProcess.start(properties, Map.of(), Map.of(), maxHeap, dir, jvmOptions);
    workers.add(w);
    return w;
  }

  /** The workers still alive. */
  public List<WorkerProcess> workers() {
    return workers.stream().filter(WorkerProcess::alive).toList();
  }

  /** The worker running task {@code task} of {@code connector} now, waiting up to {@code timeout} for it to be assigned. */
  public WorkerProcess runningTask(String connector, int task, Duration timeout) {
    return Await.value("a worker running task " + task + " of " + connector, timeout, () -> {
      try {
        String id = rest().status(connector).tasks().stream().filter(t -> t.id() == task && "RUNNING".equals(t.state()))
            .map(ConnectorStatus.TaskStatus::workerId).findFirst().orElse(null);
        return workers().stream().filter(w -> w.workerId().equals(id)).findFirst().orElse(null);
      } catch (RuntimeException e) {
        return null; // REST busy with a rebalance: ask again
      }
    });
  }

  /**
   * Waits until every connector of {@code connectors} and its tasks run, and every live worker
   * runs at least one of them (or each runs on a worker of its own, when there are fewer than
   * workers): Connect has finished moving work onto a worker that joined the group
   * ({@link #startWorker}), which it does in a rebalance a little after the join and which stops
   * the tasks it moves for a few seconds.
   */
  public void awaitBalanced(List<String> connectors, Duration timeout) {
    Await.until("every connector and task of " + connectors + " running, spread over every worker", timeout, () -> {
      java.util.Set<String> busy = new java.util.HashSet<>();
      int units = 0;
      for (String c : connectors) {
        ConnectorStatus s = rest().status(c);
        if (!s.isRunning()) {
          return false;
        }
        busy.add(s.workerId());
        s.tasks().forEach(t -> busy.add(t.workerId()));
        units += 1 + s.tasks().size();
      }
      return busy.size() >= Math.min(units, workers().size());
    });
  }

  /** SIGKILL to {@code worker} ({@link WorkerProcess#kill}); the others take its tasks over. */
  public void kill(WorkerProcess worker) throws InterruptedException {
    worker.kill();
  }

  @Override
  public ConnectRestClient rest() {
    return workers().stream().findFirst().orElseThrow(() -> new IllegalStateException("no worker of "
        + groupId() + " is alive")).rest();
  }

  @Override
  public String groupId() {
    return properties.getProperty("group.id");
  }

  @Override
  public String threads() {
    StringBuilder out = new StringBuilder();
    for (WorkerProcess w : workers()) {
      out.append("\n worker ").append(w.workerId()).append(':').append(w.threads());
    }
    return out.toString();
  }

  @Override
  public void close() throws InterruptedException {
    for (WorkerProcess w : workers) {
      w.close();
    }
  }
}
