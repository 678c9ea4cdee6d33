package io.pg2lite.replica.verify;

/**
 * Told each table's outcome once it is recorded in {@code _pg2lite.verify}: the sink and the
 * follower plug in their {@link VerifyReport} (log line, metrics, fail policy).
 *
 * <p>Called on the verifier's thread (on the applying thread when the replica is not in WAL mode):
 * an implementation must be thread-safe and quick, and must not throw; one that throws is logged
 * and the next outcome is told all the same.
 */
@FunctionalInterface
public interface VerifyListener {
  /** Logs each outcome and nothing else: a replica opened without a report (tools, tests). */
  VerifyListener LOG = VerifyLog::log;

  void verified(VerifyOutcome outcome);
}
