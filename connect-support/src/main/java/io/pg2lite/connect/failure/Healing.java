package io.pg2lite.connect.failure;

import java.time.Duration;
import java.util.function.LongSupplier;
import java.util.function.Predicate;
import org.slf4j.Logger;

/**
 * The healing lifecycle of one thing that runs and may fail (the replication stream, the source's
 * start-up, the sink's batches, the replica's start-up, a table copy): every caller of pg2lite
 * that retries does it through one of these, so the rules below hold everywhere alike. (One
 * exception: the sink waits for a full replica without a limit, ADR 0031.)
 *
 * <ol>
 *   <li><b>Classify.</b> A fault is transient when {@link Failures#isTransient} (or the caller's
 *       extra rule) says so; anything else is permanent and {@link #failed} throws it at once.</li>
 *   <li><b>Back off.</b> A transient fault schedules the next attempt after the {@link Backoff}'s
 *       wait; {@link #attemptDue} lets a caller that must not block Connect's thread (a
 *       {@code poll}) wait in short slices, {@link #awaitAttempt} waits whole.</li>
 *   <li><b>Give up.</b> Faults lasting past the backoff's limit, with no success in between, end
 *       as a {@link GaveUpException} naming how long and the setting that bounds it: a fault that
 *       lasts for hours must end as a visible failed task, not as one that looks running.</li>
 *   <li><b>Heal.</b> {@link #succeeded} resets the backoff and, after a fault, logs that the thing
 *       runs again. Where success is not visible as work done (a reader on a quiet database),
 *       {@link #opened} then {@link #steady} count running for a quiet period without a fault as a
 *       success.</li>
 *   <li><b>Log by age</b> (issue 30): a fault younger than {@link Backoff#ROUTINE_MS} is routine,
 *       logged at INFO; one that lasts, at WARN with its stack trace; giving up is for the caller
 *       to report (Connect logs the failed task at ERROR).</li>
 * </ol>
 *
 * <p>Not thread-safe: one thread drives it (the polling thread, the task's thread). Zero-cache's
 * {@code RunningState} and Debezium's {@code ErrorHandler} are the models.
 */
public final class Healing {
  private final String subject;
  private final Backoff backoff;
  private final Predicate<Throwable> transientFault;
  private final String limit;
  private final Logger log;
  private final LongSupplier clockMs;
  private final long healthyAfterMs;
  private long nextAttemptAt = Long.MIN_VALUE;
  private long openedAt = -1;
  private boolean failing;

  /**
   * @param subject what runs, as a message's subject: "The replication stream of slot s1"
   * @param backoff the waits and the limit; its clock must be {@code clockMs}
   * @param transientFault which faults are transient
   * @param limit the setting that bounds the retries, for the give-up message: "retry.timeout.ms = 300000"
   * @param healthyAfterMs how long an opened thing runs without a fault before {@link #steady} counts it healthy
   */
  public Healing(String subject, Backoff backoff, Predicate<Throwable> transientFault, String limit, Logger log,
      LongSupplier clockMs, long healthyAfterMs) {
    this.subject = subject;
    this.backoff = backoff;
    this.transientFault = transientFault;
    this.limit = limit;
    this.log = log;
    this.clockMs = clockMs;
    this.healthyAfterMs = healthyAfterMs;
  }

  /**
   * The connectors' policy ({@link Backoff#forRetries}): from 0.5 s doubling to
   * {@code retry.backoff.max.ms}, giving up after {@code retry.timeout.ms}; transient as
   * {@link Failures} says; healthy after running a backoff's longest wait without a fault.
   */
  public static Healing forRetries(String subject, long backoffMaxMs, long timeoutMs, String timeoutSetting,
      Logger log) {
    return forRetries(subject, backoffMaxMs, timeoutMs, timeoutSetting, log, System::currentTimeMillis);
  }

  /** The same on a given clock (a test's). */
  public static Healing forRetries(String subject, long backoffMaxMs, long timeoutMs, String timeoutSetting,
      Logger log, LongSupplier clockMs) {
    Backoff backoff = new Backoff(Duration.ofMillis(Backoff.FIRST_WAIT_MS), Duration.ofMillis(backoffMaxMs),
        Duration.ofMillis(timeoutMs), clockMs);
    return new Healing(subject, backoff, Failures::isTransient, timeoutSetting + " = " + timeoutMs, log, clockMs,
        backoffMaxMs);
  }

  /** The same, with an extra rule for what else counts as transient. */
  public Healing alsoTransient(Predicate<Throwable> extra) {
    return new Healing(subject, backoff, transientFault.or(extra), limit, log, clockMs, healthyAfterMs);
  }

  /**
   * An attempt failed: a transient fault schedules the next attempt, logs it, and returns the wait
   * before it (ms); a permanent one is thrown as it is; a transient one past the limit throws
   * {@link GaveUpException}.
   *
   * @param nextStep what the next attempt does, for the log: "starting it again from the last complete transaction"
   */
  public long failed(RuntimeException e, String nextStep) {
    if (!transientFault.test(e)) {
      throw e;
    }
    return transientFailure(Failures.rootMessage(e), e, nextStep);
  }

  /**
   * As {@link #failed}, for a fault the caller already knows to be transient and has no exception
   * for (a copy cut by a schema change of its table).
   */
  public long failedTransiently(String reason, String nextStep) {
    return transientFailure(reason, null, nextStep);
  }

  private long transientFailure(String reason, Throwable e, String nextStep) {
    openedAt = -1;
    long wait = backoff.next();
    if (wait < 0) {
      throw new GaveUpException(subject + " kept failing for " + backoff.failingForMs() / 1000 + " s (" + limit
          + "); last failure: " + reason, e);
    }
    failing = true;
    nextAttemptAt = clockMs.getAsLong() + wait;
    if (backoff.routine()) {
      log.info("{}: transient fault ({}); {} in {} ms", subject, reason, nextStep, wait);
    } else if (e != null) {
      log.warn("{}: transient fault lasting {} s ({}); {} in {} ms", subject, backoff.failingForMs() / 1000, reason,
          nextStep, wait, e);
    } else {
      log.warn("{}: transient fault lasting {} s ({}); {} in {} ms", subject, backoff.failingForMs() / 1000, reason,
          nextStep, wait);
    }
    return wait;
  }

  /** Milliseconds until the next attempt may run; 0 when it may run now. */
  public long untilNextAttempt() {
    long now = clockMs.getAsLong();
    return now >= nextAttemptAt ? 0 : nextAttemptAt - now;
  }

  /**
   * Whether the next attempt may run now; if not, sleeps at most {@code maxSleepMs} first, so a
   * caller on Connect's polling thread returns to Connect often (it may want to stop the task).
   */
  public boolean attemptDue(long maxSleepMs) throws InterruptedException {
    long wait = untilNextAttempt();
    if (wait == 0) {
      return true;
    }
    Thread.sleep(Math.min(wait, maxSleepMs));
    return false;
  }

  /** Sleeps until the next attempt may run (for a caller nothing else waits on). */
  public void awaitAttempt() throws InterruptedException {
    long wait = untilNextAttempt();
    if (wait > 0) {
      Thread.sleep(wait);
    }
  }

  /** An attempt did its work: the fault, if any, is healed. */
  public void succeeded() {
    if (failing) {
      log.info("{}: running again after {} ms", subject, backoff.failingForMs());
      failing = false;
    }
    backoff.reset();
    nextAttemptAt = Long.MIN_VALUE;
  }

  /**
   * The thing opened, but whether it works shows only over time (a reader may see nothing on a
   * quiet database): {@link #steady} counts it healthy once it has run for a quiet period.
   */
  public void opened() {
    openedAt = clockMs.getAsLong();
    if (failing) {
      log.info("{}: running again after {} ms", subject, backoff.failingForMs());
      failing = false;
    }
  }

  /** Called while the opened thing runs without a fault: resets the backoff after the quiet period. */
  public void steady() {
    if (openedAt >= 0 && clockMs.getAsLong() - openedAt > healthyAfterMs) {
      backoff.reset();
      openedAt = -1;
    }
  }

  /** Whether a fault has happened since the last success. */
  public boolean failing() {
    return failing;
  }

  /** Transient faults lasted past the limit: the thing stops for good, and this says for how long and why. */
  public static final class GaveUpException extends RuntimeException {
    GaveUpException(String message, Throwable cause) {
      super(message, cause);
    }
  }
}
