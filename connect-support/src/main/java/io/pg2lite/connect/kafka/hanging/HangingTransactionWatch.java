package io.pg2lite.connect.kafka.hanging;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Looks for hanging Kafka transactions ({@link HangingTransactionRule}) every {@link #INTERVAL} on a
 * daemon thread of its own, and reports each one once, with the runbook step: a WARN line, the
 * {@link #getHangingTransactions} gauge, {@link #reported()} (a REST resource's list). Its end is
 * logged too. With the abort setting on, it also aborts what it reported, as
 * {@code kafka-transactions.sh abort} would.
 *
 * <p>Timing: the rule reports only a transaction whose producer has not written for
 * {@link #MIN_IDLE} (30 s), and the watch only what a second look, at least {@link #RECHECK}
 * (10 s) after the first, still finds. So a hanging transaction is reported at most
 * 30 + 10 + 10 s (one interval to the first look) after its producer's last write, plus the looks'
 * own time.
 *
 * <p>Invariant: nothing is reported or aborted on a look that failed. A look that Kafka does not
 * answer whole (a coordinator loading, a broker down, a refused ACL) counts as no look: it is
 * logged ({@link WatchLog}), and the next look, one interval later, asks again. A transaction
 * first seen before such a failure is still reported by the next look that succeeds and still finds it.
 *
 * <p>One thread looks and aborts; JMX and REST read {@link #reported()} and the counters from
 * others (immutable lists behind volatile fields).
 */
public final class HangingTransactionWatch implements HangingTransactionWatchMBean, AutoCloseable {
  public static final Duration INTERVAL = Duration.ofSeconds(10);
  public static final Duration MIN_IDLE = Duration.ofSeconds(30);
  public static final Duration RECHECK = Duration.ofSeconds(10);

  /**
   * How a watch reports.
   *
   * @param name whose watch it is, for the log and the thread: "sink connector s1"
   * @param bootstrapServers of the cluster watched, for the command in the runbook step
   * @param abort abort what is reported
   * @param abortSetting the setting that turns the abort on, named in the log
   */
  public record Settings(String name, String bootstrapServers, boolean abort, String abortSetting) {
    /** The watch's thread and Admin client id: {@code pg2lite-hanging-transactions-<name>}. */
    public String clientId() {
      return "pg2lite-hanging-transactions-" + name.replaceAll("[^A-Za-z0-9._-]", "-");
    }
  }

  /** A candidate and the time (nanos) of the look that first found it. */
  private record Seen(HangingTransaction transaction, long at) {}

  private final TransactionLooks looks;
  private final Settings settings;
  private final WatchLog log;
  private final LongSupplier nanoClock;
  private final long recheckNanos;
  private ScheduledExecutorService timer;
  private List<Seen> pending = List.of();
  private volatile List<HangingTransaction> reported = List.of();
  private volatile long aborted;

  /** A watch that logs as {@code io.pg2lite.connect.kafka.hanging.HangingTransactionWatch}. */
  public HangingTransactionWatch(TransactionLooks looks, Settings settings) {
    this(looks, settings, LoggerFactory.getLogger(HangingTransactionWatch.class));
  }

  public HangingTransactionWatch(TransactionLooks looks, Settings settings, Logger log) {
    this(looks, settings, log, System::nanoTime, System::currentTimeMillis);
  }

  HangingTransactionWatch(TransactionLooks looks, Settings settings, Logger log, LongSupplier nanoClock,
      LongSupplier clockMs) {
    this.looks = looks;
    this.settings = settings;
    this.log = new WatchLog(log, settings, clockMs);
    this.nanoClock = nanoClock;
    this.recheckNanos = RECHECK.toNanos();
  }

  /** Starts looking, the first look one interval from now. */
  public synchronized HangingTransactionWatch start() {
    if (timer == null) {
      timer = Executors.newSingleThreadScheduledExecutor(r -> {
        Thread t = new Thread(r, settings.clientId());
        t.setDaemon(true);
        return t;
      });
      long every = INTERVAL.toMillis();
      timer.scheduleWithFixedDelay(this::lookNow, every, every, TimeUnit.MILLISECONDS);
    }
    return this;
  }

  /** One look, and what follows from it: reports, ends, aborts. The watch's thread (or a test) calls it. */
  void lookNow() {
    long at = nanoClock.getAsLong(); // the look's start: a second look starts at least an interval after the first
    Optional<List<HangingTransaction>> found;
    try {
      found = looks.look();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt(); // closing
      return;
    } catch (Exception | LinkageError e) {
      log.lookFailed(e);
      return;
    }
    if (found.isPresent()) {
      update(found.get(), at);
      if (settings.abort()) {
        abortReported();
      }
    }
  }

  /** Ends what is no longer found, reports what a second look still finds, remembers what is new. */
  private void update(List<HangingTransaction> found, long at) {
    List<HangingTransaction> open = new ArrayList<>();
    for (HangingTransaction r : reported) {
      Optional<HangingTransaction> now = found.stream().filter(r::sameAs).findFirst();
      if (now.isPresent()) {
        open.add(now.get());
      } else {
        log.ended(r);
      }
    }
    List<Seen> candidates = new ArrayList<>();
    for (HangingTransaction h : found) {
      if (open.stream().anyMatch(h::sameAs)) {
        continue;
      }
      Optional<Seen> first = pending.stream().filter(s -> s.transaction().sameAs(h)).findFirst();
      if (first.isPresent() && at - first.get().at() >= recheckNanos) {
        log.hanging(h);
        open.add(h);
      } else {
        candidates.add(first.orElse(new Seen(h, at)));
      }
    }
    pending = List.copyOf(candidates);
    reported = List.copyOf(open);
  }

  private void abortReported() {
    List<HangingTransaction> open = new ArrayList<>(reported);
    for (HangingTransaction h : reported) {
      try {
        looks.abort(h);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        return;
      } catch (Exception e) {
        log.abortFailed(h, e);
        continue;
      }
      open.remove(h);
      aborted++; // the watch's thread alone writes it
      log.aborted(h);
      reported = List.copyOf(open);
    }
  }

  /** The hanging transactions reported and still open, oldest report first. */
  public List<HangingTransaction> reported() {
    return reported;
  }

  /** How it reports: the servers named in the runbook step, the abort setting. */
  public Settings settings() {
    return settings;
  }

  @Override
  public int getHangingTransactions() {
    return reported.size();
  }

  @Override
  public long getHangingTransactionsAbortedTotal() {
    return aborted;
  }

  @Override
  public String getWatchedTopics() {
    return looks.watched();
  }

  /** Stops looking (a look under way is interrupted) and closes the looks' client. */
  @Override
  public synchronized void close() {
    if (timer != null) {
      timer.shutdownNow();
      try {
        timer.awaitTermination(5, TimeUnit.SECONDS);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }
    looks.close();
  }
}
