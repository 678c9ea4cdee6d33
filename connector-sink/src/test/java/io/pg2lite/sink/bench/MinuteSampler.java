package io.pg2lite.sink.bench;

import io.pg2lite.testkit.connect.WorkerGroup;
import io.pg2lite.testkit.connect.WorkerProcess;
import io.pg2lite.testkit.support.Percentiles;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.locks.LockSupport;
import java.util.function.LongSupplier;
import java.util.stream.Stream;

/**
 * Samples a soak once a minute, on a thread of its own, and prints the minute's line as soon as
 * it has it ({@link SoakMinute}): the workers' live heap (after a full collection it asks each
 * worker for: a pause of tens of milliseconds a minute, which the probe may see), resident memory
 * and open files (from {@code /proc}), the probe's commit → visible percentiles, the sink's lag,
 * the ledger's commit rate, and the faults under way.
 *
 * <p>Workers sit in slots: when one dies (a fault kills it), the next new worker of the group
 * takes its slot, so a column is "the first worker", whichever process that is now.
 */
final class MinuteSampler implements AutoCloseable {
  private static final long MINUTE = 60_000_000_000L;

  /** What the sampler reads besides the workers. */
  interface Sources {
    LatencyProbe probe();

    /** Records the sink has not committed yet, or -1 when Kafka did not answer in time. */
    long lag();

    /** Ledger transactions committed so far. */
    long commits();

    /** The faults under way at any time between the two {@link System#nanoTime} readings. */
    String faultsBetween(long fromNanos, long toNanos);
  }

  private final WorkerGroup workers;
  private final Sources sources;
  private final Path probeLog;
  private final long startNanos;
  private final int minutes;
  private final WorkerProcess[] slots;
  private final List<SoakMinute> rows = new CopyOnWriteArrayList<>();
  private final Thread thread;
  private volatile boolean stop;
  private volatile Throwable error;

  /**
   * @param probeLog where every probe row goes, one a line: seconds from the start at its commit,
   *     its latency in ms, the faults its way met (to find what a slow minute was waiting for)
   */
  MinuteSampler(WorkerGroup workers, int slots, Sources sources, long startNanos, int minutes, Path probeLog) {
    this.probeLog = probeLog;
    this.workers = workers;
    this.sources = sources;
    this.startNanos = startNanos;
    this.minutes = minutes;
    this.slots = new WorkerProcess[slots];
    this.thread = new Thread(this::run, "soak-minute-sampler");
    thread.setDaemon(true);
  }

  MinuteSampler start() throws IOException {
    fillSlots();
    sources.probe().drain();
    System.out.println(SoakMinute.header(slots.length));
    thread.start();
    return this;
  }

  private void run() {
    try {
      long commits = sources.commits();
      for (int m = 0; m < minutes && !stop; m++) {
        long end = startNanos + (m + 1) * MINUTE;
        while (!stop && end - System.nanoTime() > 0) {
          LockSupport.parkNanos(Math.min(end - System.nanoTime(), 1_000_000_000L));
        }
        if (stop) {
          return;
        }
        long now = sources.commits();
        SoakMinute row = sample(m, (now - commits) / 60.0, sources.faultsBetween(end - MINUTE, end));
        commits = now;
        rows.add(row);
        System.out.println(row.line());
      }
    } catch (Throwable e) {
      error = e;
      System.out.println("soak: the minute sampler failed: " + e);
    }
  }

  private SoakMinute sample(int minute, double txPerSecond, String faults) throws IOException, InterruptedException {
    fillSlots();
    int n = slots.length;
    long[] heap = new long[n];
    long[] rss = new long[n];
    long[] files = new long[n];
    for (int i = 0; i < n; i++) {
      WorkerProcess w = slots[i];
      if (w == null) {
        heap[i] = rss[i] = files[i] = -1;
        continue;
      }
      heap[i] = w.liveHeapMbNow();
      rss[i] = residentMb(w.pid());
      files[i] = openFiles(w.pid());
    }
    List<LatencyProbe.Sample> samples = sources.probe().drain().stream()
        .filter(x -> x.committedNanos() - startNanos >= 0).toList(); // rows of the calibration are not the soak's
    List<Double> all = LatencyProbe.sortedMillis(samples);
    List<LatencyProbe.Sample> quietSamples = new ArrayList<>();
    StringBuilder log = new StringBuilder();
    for (LatencyProbe.Sample x : samples) {
      String met = sources.faultsBetween(x.committedNanos(), x.visibleNanos());
      if (met.isEmpty()) {
        quietSamples.add(x);
      }
      log.append(String.format(Locale.ROOT, "%.3f,%.1f,\"%s\"%n", (x.committedNanos() - startNanos) / 1e9, x.millis(),
          met));
    }
    Files.writeString(probeLog, log, StandardOpenOption.CREATE, StandardOpenOption.APPEND);
    List<Double> quiet = LatencyProbe.sortedMillis(quietSamples);
    boolean enough = quiet.size() * 2 >= sources.probe().perMinute();
    return new SoakMinute(minute, heap, rss, files, Percentiles.of(all, 50), Percentiles.of(all, 99),
        all.size(), enough ? Percentiles.of(quiet, 50) : Double.NaN, enough ? Percentiles.of(quiet, 99) : Double.NaN,
        quiet.size(), sources.probe().oldestPendingMillis(), sources.lag(), txPerSecond, faults);
  }

  /** Puts a live worker of the group into each slot whose worker is gone (or that never had one). */
  private void fillSlots() {
    List<WorkerProcess> alive = new ArrayList<>(workers.workers());
    for (WorkerProcess w : slots) {
      alive.remove(w);
    }
    for (int i = 0; i < slots.length; i++) {
      if ((slots[i] == null || !slots[i].alive()) && !alive.isEmpty()) {
        slots[i] = alive.remove(0);
      } else if (slots[i] != null && !slots[i].alive()) {
        slots[i] = null;
      }
    }
  }

  /** {@code VmRSS} of the process, in MB (-1 once it is gone). */
  static long residentMb(long pid) {
    try (Stream<String> lines = Files.lines(Path.of("/proc", Long.toString(pid), "status"))) {
      return lines.filter(l -> l.startsWith("VmRSS:")).findFirst()
          .map(l -> Long.parseLong(l.replaceAll("[^0-9]", "")) / 1024).orElse(-1L);
    } catch (IOException e) {
      return -1;
    }
  }

  /** Entries of {@code /proc/<pid>/fd} (-1 once the process is gone). */
  static long openFiles(long pid) {
    try (Stream<Path> fds = Files.list(Path.of("/proc", Long.toString(pid), "fd"))) {
      return fds.count();
    } catch (IOException e) {
      return -1;
    }
  }

  /** Waits until every minute is sampled (or the sampler failed); returns the rows. */
  List<SoakMinute> awaitRows(long timeoutMillis) throws InterruptedException {
    thread.join(timeoutMillis);
    if (error != null) {
      throw new IllegalStateException("the minute sampler failed", error);
    }
    return List.copyOf(rows);
  }

  List<SoakMinute> rows() {
    return List.copyOf(rows);
  }

  @Override
  public void close() throws InterruptedException {
    stop = true;
    thread.join(30_000);
  }
}
