package io.pg2lite.sink.bench;

import io.pg2lite.testkit.connect.WorkerProcess;
import io.pg2lite.testkit.kafka.BrokerCluster;
import io.pg2lite.testkit.kafka.BrokerNode;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.function.LongSupplier;
import java.util.stream.Collectors;

/**
 * The five faults of issue 28 done to the soak's pipeline, one at a time (ClusterFaultsIT does
 * each once; the soak does them again and again under load): each is timed to heal (from the
 * fault until a ledger transaction committed after it is in the replica) and then undone, so
 * that the next meets a whole cluster: killed nodes started again, the workers topped back up,
 * every partition fully replicated and led by its preferred replica ({@link #restore}). Nothing
 * is a REST call but status reads.
 *
 * <p>Remembers when each fault was under way (from its first step, moving a leader, say, to the
 * end of its restore), for the minutes' lines and for leaving fault minutes out of the p99 claim.
 */
final class SoakFaults {
  /** The faults, in the order; the soak draws them round-robin. */
  enum Kind {
    LEADER_KILLED("change-log leader killed (SIGKILL)"),
    CONTROLLER_KILLED("active controller killed (SIGKILL)"),
    ROLLING_RESTART("rolling restart of the 3 brokers"),
    LEADER_PAUSED("change-log leader paused 60 s (SIGSTOP)"),
    WORKER_KILLED("worker running the source killed during a leader change");

    final String description;

    Kind(String description) {
      this.description = description;
    }

    String shortName() {
      return name().toLowerCase(Locale.ROOT).replace('_', '-');
    }
  }

  /** One fault done: when, how long to heal, how long until the cluster was whole again. */
  record Outcome(Kind kind, long startNanos, long endNanos, Duration heal, Duration restore, String detail) {}

  private static final Duration PAUSE = Duration.ofSeconds(60);
  /**
   * How long into a pause the pipeline is expected to have healed (10 s request timeouts, 9 s of
   * broker session): past it, the workers' threads are printed, to show where a stall waits.
   */
  private static final Duration STALL_LOOK = Duration.ofSeconds(30);
  private static final Duration HEAL = Duration.ofMinutes(5);

  private final SoakPipeline p;
  private final LongSupplier nextLedgerId;
  private final int workerCount;
  private final List<Outcome> outcomes = new ArrayList<>();
  /** The fault under way: its kind and start, or null. */
  private volatile Kind current;
  private volatile long currentStart;

  /** @param nextLedgerId the id the ledger's next transaction inserts: every later one is written after the call */
  SoakFaults(SoakPipeline p, LongSupplier nextLedgerId, int workerCount) {
    this.p = p;
    this.nextLedgerId = nextLedgerId;
    this.workerCount = workerCount;
  }

  /**
   * Does {@code kind}, waits for the heal and restores the cluster; prints and returns the
   * outcome. A fault that does not heal within 5 minutes throws.
   */
  Outcome land(Kind kind, long soakStartNanos) throws Exception {
    long start = System.nanoTime();
    synchronized (this) {
      current = kind;
      currentStart = start;
    }
    System.out.printf(Locale.ROOT, "fault at %s: %s%n", clock(start - soakStartNanos), kind.description);
    String[] detail = {""};
    Duration heal = switch (kind) {
      case LEADER_KILLED -> leaderKilled();
      case CONTROLLER_KILLED -> controllerKilled();
      case ROLLING_RESTART -> rollingRestart(detail);
      case LEADER_PAUSED -> leaderPaused(detail);
      case WORKER_KILLED -> workerKilledDuringALeaderChange();
    };
    long restoreStart = System.nanoTime();
    restore();
    long end = System.nanoTime();
    Outcome o = new Outcome(kind, start, end, heal, Duration.ofNanos(end - restoreStart), detail[0]);
    synchronized (this) {
      outcomes.add(o);
      current = null;
    }
    System.out.printf(Locale.ROOT, "fault at %s: %s: healed in %.1f s%s; cluster whole again %.1f s later%n",
        clock(start - soakStartNanos), kind.description, seconds(heal), detail[0], seconds(o.restore()));
    return o;
  }

  private Duration leaderKilled() throws Exception {
    int leader = p.cluster.moveLeaderOffTheController(p.log);
    long after = nextLedgerId.getAsLong();
    long t0 = System.nanoTime();
    p.cluster.node(leader).kill();
    return p.awaitHealed(after, t0, HEAL);
  }

  private Duration controllerKilled() throws Exception {
    p.cluster.moveLeaderOffTheController(p.log);
    int controller = p.cluster.activeController();
    long after = nextLedgerId.getAsLong();
    long t0 = System.nanoTime();
    p.cluster.node(controller).kill();
    return p.awaitHealed(after, t0, HEAL);
  }

  /**
   * The pipeline goes on while one node at a time is down, so the heal is the longest a commit
   * waited to be visible while the restart went on (one commit looked at a second, the next once
   * the last is visible); the detail adds the restart's times and a commit's wait after it.
   */
  private Duration rollingRestart(String[] detail) throws Exception {
    long t0 = System.nanoTime();
    List<List<Duration>> perNode = new ArrayList<>();
    Exception[] failure = {null};
    Thread restart = new Thread(() -> {
      try {
        perNode.add(p.cluster.rollingRestart());
      } catch (Exception e) {
        failure[0] = e;
      }
    }, "soak-rolling-restart");
    restart.start();
    Duration longest = Duration.ZERO;
    while (restart.isAlive()) {
      Duration wait = p.awaitHealed(nextLedgerId.getAsLong(), System.nanoTime(), HEAL);
      longest = wait.compareTo(longest) > 0 ? wait : longest;
      restart.join(1000);
    }
    if (failure[0] != null) {
      throw failure[0];
    }
    Duration all = Duration.ofNanos(System.nanoTime() - t0);
    Duration afterLast = p.awaitHealed(nextLedgerId.getAsLong(), System.nanoTime(), HEAL);
    detail[0] = String.format(Locale.ROOT, " (the longest a commit waited during the restart; restart %.0f s in all,"
        + " per node %s; a commit after it visible in %.1f s)", seconds(all), perNode.get(0).stream()
        .map(d -> String.format(Locale.ROOT, "%.0f s", seconds(d))).collect(Collectors.joining(", ")),
        seconds(afterLast));
    return longest;
  }

  /** As ClusterFaultsIT: the heal is looked for while the node is paused, and after SIGCONT if it did not come. */
  private Duration leaderPaused(String[] detail) throws Exception {
    BrokerNode paused = p.cluster.node(p.cluster.moveLeaderOffTheController(p.log));
    long after = nextLedgerId.getAsLong();
    long t0 = System.nanoTime();
    paused.pause();
    Duration heal = null;
    try {
      try {
        heal = p.awaitHealed(after, t0, STALL_LOOK);
      } catch (AssertionError notYet) {
        System.out.println("soak: nothing healed " + STALL_LOOK.toSeconds() + " s into the pause of node "
            + paused.id() + "; the workers' threads:\n" + p.workers.threads());
        heal = p.awaitHealed(after, t0, PAUSE.minus(STALL_LOOK));
      }
    } catch (AssertionError notWhilePaused) {
      // heals only once the node answers again: measured below
    } finally {
      long left = PAUSE.toNanos() - (System.nanoTime() - t0);
      if (left > 0) {
        Thread.sleep(left / 1_000_000);
      }
      paused.resume();
    }
    if (heal == null) {
      heal = p.awaitHealed(after, t0, HEAL);
    }
    detail[0] = heal.compareTo(PAUSE) < 0 ? " (while paused)" : " (after SIGCONT)";
    return heal;
  }

  private Duration workerKilledDuringALeaderChange() throws Exception {
    BrokerCluster cluster = p.cluster;
    int leader = cluster.leaderOf(p.log).orElseThrow();
    int next = cluster.nodes().stream().map(BrokerNode::id).filter(id -> id != leader).findFirst().orElseThrow();
    WorkerProcess victim = p.workers.runningTask(SoakPipeline.SOURCE, 0, SoakPipeline.WAIT);
    long after = nextLedgerId.getAsLong();
    long t0 = System.nanoTime();
    Thread move = new Thread(() -> {
      try {
        cluster.moveLeader(p.log, next);
      } catch (Exception e) {
        System.out.println("soak: the leader move during the worker kill failed: " + e);
      }
    }, "soak-leader-move");
    move.start();
    p.workers.kill(victim);
    move.join(SoakPipeline.WAIT.toMillis());
    return p.awaitHealed(after, t0, HEAL);
  }

  /**
   * Every node running, the workers back to their number and Connect's work spread over them
   * again, every partition fully replicated and led by its preferred replica again, and then a
   * commit made after all that visible in the replica. Each of those steps moves something (a
   * leader, a coordinator, a task) and the pipeline waits a few seconds for each move; left to
   * Kafka and Connect, they happen by themselves, the leaders up to 5 minutes later
   * ({@code leader.imbalance.check.interval.seconds}), and their stalls would land in minutes
   * counted as quiet. So the fault lasts until they are done and the pipeline flows again.
   */
  private void restore() throws Exception {
    for (BrokerNode n : p.cluster.nodes()) {
      if (!n.isAlive()) {
        p.cluster.start(n);
      }
    }
    boolean started = false;
    while (p.workers.workers().size() < workerCount) {
      p.workers.startWorker();
      started = true;
    }
    p.cluster.awaitFullyReplicated(SoakPipeline.WAIT);
    p.cluster.electPreferredLeaders(SoakPipeline.WAIT);
    if (started) {
      p.workers.awaitBalanced(List.of(SoakPipeline.SOURCE, SoakPipeline.SINK), SoakPipeline.WAIT);
    }
    p.awaitHealed(nextLedgerId.getAsLong(), System.nanoTime(), HEAL);
  }

  /** The faults under way at any time between the two {@link System#nanoTime} readings ("" for none). */
  synchronized String between(long fromNanos, long toNanos) {
    List<String> out = new ArrayList<>();
    for (Outcome o : outcomes) {
      if (o.startNanos() < toNanos && o.endNanos() > fromNanos) {
        out.add(o.kind().shortName() + (o.startNanos() < fromNanos ? " (cont.)" : ""));
      }
    }
    if (current != null && currentStart < toNanos) {
      out.add(current.shortName() + (currentStart < fromNanos ? " (cont.)" : ""));
    }
    return String.join(", ", out);
  }

  synchronized List<Outcome> outcomes() {
    return List.copyOf(outcomes);
  }

  static double seconds(Duration d) {
    return d.toMillis() / 1000.0;
  }

  static String clock(long nanos) {
    long s = Math.max(0, nanos / 1_000_000_000L);
    return String.format(Locale.ROOT, "%d:%02d", s / 60, s % 60);
  }
}
