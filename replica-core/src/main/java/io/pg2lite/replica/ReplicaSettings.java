package io.pg2lite.replica;

import java.nio.file.Path;

/**
 * How the sink opens a replica file for writing, the same for every file it writes: the replica
 * at {@code replica.path} and a replica built beside it for a new lineage, which later takes its
 * place and must then behave exactly as the replica did.
 *
 * @param maxSizeBytes the size cap ({@link Replica#limitSize}), 0 for none
 * @param maxTransactionsPerCommit how many upstream transactions one SQLite transaction may hold
 *     (the applier's coalescing), for whoever builds the applier
 */
public record ReplicaSettings(String journalMode, String synchronous, int busyTimeoutMs, long maxSizeBytes,
    int maxTransactionsPerCommit) {
  /** Opens (creating if needed) the replica at {@code path}, size cap set; closed again if that fails. */
  public Replica open(Path path) throws ReplicaException {
    Replica replica = Replica.open(path, journalMode, synchronous, busyTimeoutMs);
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
