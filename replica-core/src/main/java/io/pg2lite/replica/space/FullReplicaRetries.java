package io.pg2lite.replica.space;

import io.pg2lite.connect.failure.Backoff;
import io.pg2lite.connect.failure.Failures;
import io.pg2lite.replica.space.ReplicaFull;
import io.pg2lite.replica.space.ReplicaSpace;
import java.time.Duration;
import java.time.Instant;
import java.util.function.LongSupplier;
import org.slf4j.Logger;

/**
 * The sink task's retries of a full replica ({@link ReplicaFull}: its disk, or
 * {@code replica.max.size.bytes}). Unlike the other transient faults ({@code Healing}) these are
 * not bounded by {@code retry.timeout.ms}: waiting loses nothing (each attempt rolls back to the
 * replica's last commit) and only room made from outside cures the fault, so a task that failed
 * would only add a restart to the operator's work.
 *
 * <p>One fault, one ERROR: the first failure logs what is full, the figures and what to do; while
 * it lasts a WARN reminds every {@link #REMIND_MS}; the attempts in between are silent. The
 * waits grow from 0.5 s, doubling to {@code retry.backoff.max.ms}. The fault is over once the
 * replica has committed again and then gone on for as long as the longest wait without being
 * full again: a disk with a little room may take a small transaction and refuse the next, and
 * that is still the same fault. Its end is one INFO line, and {@link #fullSince} is -1 again.
 *
 * <p>Not thread-safe: the task's thread drives it; {@link #fullSince} may be read from any thread.
 */
public final class FullReplicaRetries {
  /** How often a fault that lasts is logged again. */
  static final long REMIND_MS = 5 * 60_000;
  private final ReplicaSpace space;
  private final Backoff backoff;
  private final long settleMs;
  private final Logger log;
  private final LongSupplier clockMs;
  private volatile long fullSince = -1;
  private long remindAt;
  /** When the replica first committed after the last failure; -1 while failing or without a fault. */
  private long committedAgainAt = -1;

  public FullReplicaRetries(ReplicaSpace space, long backoffMaxMs, Logger log, LongSupplier clockMs) {
    this.space = space;
    this.backoff = new Backoff(Duration.ofMillis(Backoff.FIRST_WAIT_MS), Duration.ofMillis(backoffMaxMs),
        Duration.ofMillis(Long.MAX_VALUE), clockMs);
    this.settleMs = backoffMaxMs;
    this.log = log;
    this.clockMs = clockMs;
  }

  /** Whether {@code fault} is the replica being full (see {@link ReplicaFull}). */
  public boolean isFull(Throwable fault) {
    return ReplicaFull.in(fault, space::usableBytes);
  }

  /**
   * A write failed because the replica is full, with {@code pendingBytes} of change-log records
   * applied since its last commit (rolled back by now): logs as the class comment says and
   * returns the wait before the next attempt, in ms. Never gives up.
   */
  public long failed(Throwable fault, long pendingBytes) {
    long now = clockMs.getAsLong();
    committedAgainAt = -1;
    long wait = backoff.next();
    if (fullSince < 0) {
      fullSince = now;
      remindAt = now + REMIND_MS;
      log.error("{} The failure: {}", space.describe(space.measure(pendingBytes)),
          fault.getMessage() != null ? fault.getMessage() : Failures.rootMessage(fault));
    } else if (now >= remindAt) {
      remindAt = now + REMIND_MS;
      log.warn("The replica {} is still full after {} s ({}); the sink keeps retrying from its last commit",
          space.file(), (now - fullSince) / 1000, space.describeBriefly(space.measure(pendingBytes)));
    }
    return wait;
  }

  /** The replica committed a transaction: the fault, if any, ends unless it comes back within the settling time. */
  public void committed() {
    if (fullSince >= 0 && committedAgainAt < 0) {
      committedAgainAt = clockMs.getAsLong();
    }
    settle();
  }

  /** Ends the fault once the replica has committed and gone on for the settling time; call it often. */
  public void settle() {
    if (committedAgainAt >= 0 && clockMs.getAsLong() - committedAgainAt >= settleMs) {
      log.info("The replica {} is applied again after {} s full (since {}); {} free on its filesystem",
          space.file(), (committedAgainAt - fullSince) / 1000, Instant.ofEpochMilli(fullSince),
          ReplicaSpace.mib(space.usableBytes()));
      fullSince = -1;
      committedAgainAt = -1;
      backoff.reset();
    }
  }

  /** When the replica became full (epoch ms), -1 when it is not. */
  public long fullSince() {
    return fullSince;
  }
}
