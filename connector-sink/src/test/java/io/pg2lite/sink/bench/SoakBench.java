package io.pg2lite.sink.bench;

import io.pg2lite.testkit.connect.StatusWatch;
import io.pg2lite.testkit.fuzz.FuzzFeature;
import io.pg2lite.testkit.fuzz.Workload;
import io.pg2lite.testkit.fuzz.WorkloadGenerator;
import io.pg2lite.testkit.support.Await;
import io.pg2lite.testkit.support.BenchSettings;
import io.pg2lite.testkit.workload.Ledger;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.function.BooleanSupplier;
import java.util.stream.Stream;

/**
 * The soak of issue 28: an hour of a mixed workload at half the pipeline's measured capacity, a
 * fault every few minutes, on a replicated Kafka cluster ({@link SoakPipeline}: three KRaft
 * broker processes, RF 3, {@code min.insync.replicas=2}; two Connect worker processes; an
 * exactly-once source and a sink). It prints a line a minute ({@link SoakMinute}) and ends with
 * its claims ({@link SoakVerdicts}, {@link SoakCheck}), exiting 1 if any fails.
 * <ol>
 *   <li>Capacity: the {@link Ledger}'s small transactions written as fast as one connection
 *       goes (held while the replica is more than 5,000 behind), with the mixed workload and the
 *       probe beside them, for {@code calibrateSeconds} after {@code warmupSeconds}; the rate of
 *       ledger transactions that became visible in the replica is the capacity; the soak writes
 *       at half of it ({@code -Dpg2lite.soak.rate=N} skips the measurement).</li>
 *   <li>The soak, {@code minutes} long: the ledger at that rate (its loss and duplication are
 *       countable), the {@link MixedWorkload} (DML and DDL of the fuzz workload, a backfill every
 *       {@code backfillMinutes}), the {@link LatencyProbe}, and from the end of the warm-up (a
 *       tenth of the run, at least a minute) a fault every {@code faultMinutes}, the five of
 *       {@link SoakFaults.Kind} in turn, each undone before the next.</li>
 *   <li>The end: writers stopped, the replica awaited and compared with Postgres: the ledger
 *       audit (nothing lost, nothing applied twice) and every published table cell by cell;
 *       then memory flat and p99 without drift, and no fault that did not heal, no task FAILED.</li>
 * </ol>
 * The minutes go to {@code <out>/soak-<minutes>min.csv} and two plots beside it.
 *
 * <pre>
 * mvn -B -o -q -pl connector-sink -am package -DskipTests dependency:build-classpath \
 *     -Dmdep.outputFile=/tmp/cp.txt -Dmdep.includeScope=test
 * java [-Dpg2lite.soak.minutes=60] [-Dpg2lite.soak.faultMinutes=5] [-Dpg2lite.soak.rate=N] \
 *     [-Dpg2lite.soak.heap=512m] [-Dpg2lite.soak.out=docs/performance] \
 *     -cp connector-sink/target/test-classes:connector-sink/target/classes:$(cat /tmp/cp.txt) \
 *     io.pg2lite.sink.bench.SoakBench 2>/tmp/soak.log
 * </pre>
 * More settings: {@code pg2lite.soak.workers} (2), {@code seed} (1), {@code warmupSeconds} (30),
 * {@code calibrateSeconds} (60), {@code mixPerSecond} (2 units a second), {@code mixTransactions}
 * (300 a round), {@code backfillMinutes} (3), {@code backfillRows} (20,000), {@code probeMs} (250),
 * {@code faults} (kinds in turn, e.g. {@code leader_paused,worker_killed}); and
 * {@code -Dpg2lite.soak.source.<key>} / {@code -Dpg2lite.soak.sink.<key>} over the connectors'
 * settings.
 */
public final class SoakBench {
  private static final String P = "pg2lite.soak.";
  private static final long MINUTE = 60_000_000_000L;
  /** Ledger transactions the replica may be behind while the calibration drives the ledger unpaced. */
  private static final long CALIBRATION_BACKLOG = 5_000;

  private final int minutes = Integer.getInteger(P + "minutes", 60);
  private final double faultMinutes = Double.parseDouble(System.getProperty(P + "faultMinutes", "5"));
  private final String fixedRate = System.getProperty(P + "rate");
  private final String heap = System.getProperty(P + "heap", "512m");
  private final int workers = Integer.getInteger(P + "workers", 2);
  private final long seed = Long.getLong(P + "seed", 1);
  private final int warmupSeconds = Integer.getInteger(P + "warmupSeconds", 30);
  private final int calibrateSeconds = Integer.getInteger(P + "calibrateSeconds", 60);
  private final double mixPerSecond = Double.parseDouble(System.getProperty(P + "mixPerSecond", "2"));
  private final int mixTransactions = Integer.getInteger(P + "mixTransactions", 300);
  private final double backfillMinutes = Double.parseDouble(System.getProperty(P + "backfillMinutes", "3"));
  private final int backfillRows = Integer.getInteger(P + "backfillRows", 20_000);
  private final int probeMs = Integer.getInteger(P + "probeMs", 250);
  private final Path out = Path.of(System.getProperty(P + "out", "docs/performance"));
  private final List<SoakFaults.Kind> faultKinds = Stream.of(System.getProperty(P + "faults",
      "leader_killed,controller_killed,rolling_restart,leader_paused,worker_killed").split(","))
      .map(s -> SoakFaults.Kind.valueOf(s.trim().toUpperCase(Locale.ROOT))).toList();

  public static void main(String[] args) throws Exception {
    Path work = Files.createTempDirectory("pg2lite-soak");
    boolean pass = new SoakBench().run(work);
    System.out.println(pass ? "soak: PASS" : "soak: FAIL (work directory kept: " + work + ")");
    if (pass) {
      deleteTree(work);
    }
    System.exit(pass ? 0 : 1);
  }

  private boolean run(Path work) throws Exception {
    int warmUp = SoakVerdicts.warmUpMinutes(minutes);
    System.out.printf(Locale.ROOT, "soak: %d minutes (warm-up %d), a fault every %s minutes from minute %d (%s);"
        + " workers %d × -Xmx%s; seed %d%n", minutes, warmUp, faultMinutes, warmUp, faultKinds, workers, heap, seed);
    System.out.println("soak: the source's producer and the sink's consumer with request.timeout.ms 10000 (a hung"
        + " broker is given up on while it hangs), the source's transaction.timeout.ms 60000 (Kafka's default)");
    Workload round0 = WorkloadGenerator.generateRound(seed, 0, mixTransactions,
        FuzzFeature.allExcept(MixedWorkload.DISABLED));
    List<SoakVerdicts.Verdict> verdicts = new ArrayList<>();
    try (SoakPipeline p = SoakPipeline.start(work, heap, workers, round0, BenchSettings.withPrefix(P + "source."),
        BenchSettings.withPrefix(P + "sink."))) {
      Ledger ledger = new Ledger(p.db, seed, p::connectPostgres);
      RatePacer pacer = new RatePacer();
      List<SoakMinute> rows;
      try (StatusWatch watch = new StatusWatch(p.workers::rest, "soak", List.of(SoakPipeline.SOURCE,
          SoakPipeline.SINK)).start()) {
        LatencyProbe probe = new LatencyProbe(p::connectPostgres, p.replica, Duration.ofMillis(probeMs)).start();
        MixedWorkload mix = new MixedWorkload(p, round0, mixTransactions, mixPerSecond, backfillMinutes, backfillRows)
            .start();
        Ledger.Background writer = ledger.writeInBackground("soak-ledger", pacer);
        try {
          calibrate(p, writer, pacer, watch);
          Path probeLog = Files.createTempFile("pg2lite-soak-probes-", ".csv"); // kept: where a slow minute's rows are
          System.out.println("soak: every probe row in " + probeLog + " (seconds from minute 0 at its commit, ms,"
              + " the faults it met)");
          long start = System.nanoTime();
          SoakFaults faults = new SoakFaults(p, writer::nextId, workers);
          MinuteSampler sampler = new MinuteSampler(p.workers, workers, sources(p, probe, writer, faults), start,
              minutes, probeLog).start();
          mix.startBackfills(start);
          verdicts.add(landFaults(faults, start, warmUp, () -> watch.failure() != null));
          if (watch.failure() == null) {
            rows = sampler.awaitRows(minutes * 60_000L + 300_000L);
          } else {
            System.out.println("soak: a task FAILED: the soak ends early");
            rows = sampler.rows();
          }
          sampler.close();
          printFaults(faults.outcomes());
        } finally {
          mix.close();
          writer.close();
          probe.close();
        }
        System.out.printf(Locale.ROOT, "soak: writers stopped: %,d ledger transactions; the mixed workload %d rounds,"
            + " %,d units, %d backfills, %d statements failed in Postgres%s%n", writer.commits(), mix.rounds(),
            mix.units(), mix.backfills(), mix.failures().size(),
            mix.failures().isEmpty() ? "" : " (first: " + mix.failures().get(0) + ")");
        verdicts.addAll(new SoakCheck(p, ledger).converged());
        verdicts.add(new SoakVerdicts.Verdict("no task FAILED", watch.failure() == null,
            watch.failure() == null ? watch.polls() + " status polls" : watch.failure()));
      }
      verdicts.add(SoakVerdicts.flat("live heap flat (workers together)", rows, minutes, SoakMinute::heapSum));
      verdicts.add(SoakVerdicts.flat("RSS flat (workers together)", rows, minutes, SoakMinute::rssSum));
      verdicts.add(SoakVerdicts.p99WithoutDrift(rows, minutes));
      SoakReport.write(out, minutes, workers, rows);
    }
    System.out.println("soak: verdicts");
    verdicts.forEach(v -> System.out.println("  " + v));
    return verdicts.stream().allMatch(SoakVerdicts.Verdict::pass);
  }

  /** What the sampler reads every minute, besides the workers. */
  private static MinuteSampler.Sources sources(SoakPipeline p, LatencyProbe probe, Ledger.Background writer,
      SoakFaults faults) {
    return new MinuteSampler.Sources() {
      @Override
      public LatencyProbe probe() {
        return probe;
      }

      @Override
      public long lag() {
        return p.lag();
      }

      @Override
      public long commits() {
        return writer.commits();
      }

      @Override
      public String faultsBetween(long fromNanos, long toNanos) {
        return faults.between(fromNanos, toNanos);
      }
    };
  }

  /**
   * Measures the capacity (unless a rate is given) and sets the ledger's pace to half of it; then
   * waits until the replica has caught up with what the measurement left behind. While measuring,
   * the ledger writes as fast as it goes but is held whenever the replica is more than
   * {@link #CALIBRATION_BACKLOG} transactions behind: a writer faster than the pipeline then waits
   * for it, so the rate visible in the replica is the pipeline's, and the backlog stays small (an
   * unbounded one took the replica more than 10 minutes to drain once).
   */
  private void calibrate(SoakPipeline p, Ledger.Background writer, RatePacer pacer, StatusWatch watch)
      throws InterruptedException {
    double rate;
    if (fixedRate != null) {
      rate = Double.parseDouble(fixedRate);
      System.out.printf(Locale.ROOT, "soak: rate %.0f ledger transactions/s (given: no calibration)%n", rate);
    } else {
      System.out.printf(Locale.ROOT, "calibration: the ledger as fast as one connection goes (held while the replica"
          + " is more than %,d transactions behind), the mixed workload (%.0f/s) and the probe beside it: %d s warm-up,"
          + " then %d s measured%n", CALIBRATION_BACKLOG, mixPerSecond, warmupSeconds, calibrateSeconds);
      pacer.set(0);
      driveAtCapacity(p, writer, pacer, warmupSeconds);
      long id0 = p.replicaMaxId();
      long c0 = writer.commits();
      long t0 = System.nanoTime();
      double held = driveAtCapacity(p, writer, pacer, calibrateSeconds);
      long id1 = p.replicaMaxId();
      long c1 = writer.commits();
      double s = (System.nanoTime() - t0) / 1e9;
      double visible = (id1 - id0) / s;
      rate = visible / 2;
      System.out.printf(Locale.ROOT, "calibration: capacity %.0f ledger transactions/s visible in the replica"
          + " (%.0f/s committed in Postgres; the writer held %.0f %% of the time: %s); the soak runs at half: %.0f/s%n",
          visible, (c1 - c0) / s, held * 100, held > 0.05 ? "the pipeline set the pace"
              : "one connection set the pace, so this is a lower bound of the pipeline's own rate", rate);
    }
    pacer.set(rate);
    long target = writer.nextId() - 1;
    long t0 = System.nanoTime();
    Await.until("the replica caught up with the calibration's backlog (ledger id " + target + ")",
        Duration.ofMinutes(5), () -> {
          if (watch.failure() != null) {
            throw new AssertionError("a task FAILED: " + watch.failure()); // not retried by Await
          }
          return p.replicaMaxId() >= target;
        });
    System.out.printf(Locale.ROOT, "soak: the replica caught up in %.1f s; minute 0 starts at %s%n",
        (System.nanoTime() - t0) / 1e9, java.time.LocalTime.now().withNano(0));
  }

  /**
   * Lets the ledger write unpaced for {@code seconds}, held while the replica is more than
   * {@link #CALIBRATION_BACKLOG} transactions behind (looked at every 100 ms); returns the share
   * of the time it was held.
   */
  private static double driveAtCapacity(SoakPipeline p, Ledger.Background writer, RatePacer pacer, int seconds)
      throws InterruptedException {
    long end = System.nanoTime() + seconds * 1_000_000_000L;
    int looks = 0;
    int held = 0;
    try {
      while (end - System.nanoTime() > 0) {
        boolean behind = writer.nextId() - 1 - p.replicaMaxId() > CALIBRATION_BACKLOG;
        pacer.hold(behind);
        looks++;
        held += behind ? 1 : 0;
        Thread.sleep(100);
      }
    } finally {
      pacer.hold(false);
    }
    return looks == 0 ? 0 : (double) held / looks;
  }

  /**
   * A fault every {@code faultMinutes} from the end of the warm-up until the end of the soak, the
   * kinds in turn; a fault that took longer than the interval moves the next one to the next slot.
   * Ends early when a task FAILED (the soak's claims have failed then). Returns the verdict "every
   * fault healed".
   */
  private SoakVerdicts.Verdict landFaults(SoakFaults faults, long start, int warmUp, BooleanSupplier taskFailed)
      throws InterruptedException {
    long end = start + minutes * MINUTE;
    long interval = (long) (faultMinutes * MINUTE);
    long next = start + warmUp * MINUTE;
    int done = 0;
    while (end - System.nanoTime() > 0 && !taskFailed.getAsBoolean()) {
      if (System.nanoTime() - next >= 0) {
        SoakFaults.Kind kind = faultKinds.get(done % faultKinds.size());
        try {
          faults.land(kind, start);
          done++;
        } catch (Exception | AssertionError e) {
          System.out.println("soak: " + kind.description + " did not heal: " + e);
          return new SoakVerdicts.Verdict("every fault healed", false, kind.description + ": " + e.getMessage());
        }
        while (System.nanoTime() - next >= 0) {
          next += interval;
        }
      }
      Thread.sleep(Math.max(1, Math.min(1000, (Math.min(next, end) - System.nanoTime()) / 1_000_000)));
    }
    return new SoakVerdicts.Verdict("every fault healed", true, done + " faults, each healed and undone");
  }

  private static void printFaults(List<SoakFaults.Outcome> outcomes) {
    System.out.println("soak: faults");
    for (SoakFaults.Outcome o : outcomes) {
      System.out.printf(Locale.ROOT, "  %-56s healed in %5.1f s, whole again %5.1f s later%s%n", o.kind().description,
          SoakFaults.seconds(o.heal()), SoakFaults.seconds(o.restore()), o.detail());
    }
  }

  private static void deleteTree(Path dir) throws java.io.IOException {
    try (Stream<Path> paths = Files.walk(dir)) {
      for (Path f : paths.sorted(java.util.Comparator.reverseOrder()).toList()) {
        Files.deleteIfExists(f);
      }
    }
  }
}
