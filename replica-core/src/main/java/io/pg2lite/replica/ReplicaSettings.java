package io.pg2lite.replica;

import io.pg2lite.replica.verify.VerifyListener;
import java.nio.file.Path;

/**
 * How the sink opens a replica file for writing, the same for every file it writes: the replica
 * at {@code replica.path} and a replica built beside it for a new lineage, which later takes its
 * place and must then behave exactly as the replica did.
 *
 * @param maxSizeBytes the size cap ({@link Replica#limitSize}), 0 for none
 * @param maxTransactionsPerCommit how many upstream transactions one SQLite transaction may hold
 *     (the applier's coalescing), for whoever builds the applier
 * @param verify told the outcome of every verification the replica computes
 *     ({@link io.pg2lite.replica.verify.ReplicaVerifier})
 */
public record ReplicaSettings(String journalMode, String synchronous, int busyTimeoutMs, long maxSizeBytes,
    int maxTransactionsPerCommit, VerifyListener verify) {
  /** Settings whose verifications are only logged ({@link VerifyListener#LOG}). */
  public ReplicaSettings(String journalMode, String synchronous, int busyTimeoutMs, long maxSizeBytes,
      int maxTransactionsPerCommit) {
    this(journalMode, synchronous, busyTimeoutMs, maxSizeBytes, maxTransactionsPerCommit, VerifyListener.LOG);
  }

  /** The same settings, verifications told to {@code listener}. */
  public ReplicaSettings withVerify(VerifyListener listener) {
    return new ReplicaSettings(journalMode, synchronous, busyTimeoutMs, maxSizeBytes, maxTransactionsPerCommit,
        listener);
  }

  /** Opens (creating if needed) the replica at {@code path}, size cap set; closed again if that fails. */
  public Replica open(Path path) throws ReplicaException {
    Replica replica = Replica.open(path, journalMode, synchronous, busyTimeoutMs, verify);
    try {
      replica.limitSize(maxSizeBytes);
      return replica;
    } catch (ReplicaException | RuntimeException e) {
      try {
        replica.close();
      } catch (ReplicaException suppressed) {
        e.addSuppressed(suppressed);
      }
      throw e;
    }
  }
}
