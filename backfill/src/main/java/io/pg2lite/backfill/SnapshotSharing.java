package io.pg2lite.backfill;

import io.pg2lite.backfill.state.BackfillRequest;
import io.pg2lite.protocol.message.ChangeLogEntry;
import io.pg2lite.protocol.message.DataChange;
import java.util.Collection;
import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.Set;
import java.util.function.Supplier;

/**
 * Which copies may read the copy source's shared snapshot (ADR 0026): the requests, as the very
 * objects, that were required when that snapshot was asked for. A request is immutable and every
 * transition replaces it, so one that changed since (a column added, its metadata updated, a
 * rename) is not here and gets a snapshot of its own, taken after the change: a snapshot older
 * than the change that required a copy would miss rows written before the table was published,
 * which the stream never carries. Forgotten whenever a copy fails, is cancelled or abandoned, and
 * when a committed update carries an old key (a row-key change: a copy must not read a snapshot
 * from before it). Used on the source's poll thread only.
 */
final class SnapshotSharing {
  private final Set<BackfillRequest> served = Collections.newSetFromMap(new IdentityHashMap<>());

  /**
   * Whether the copy of {@code request} may read the shared snapshot; when not, the snapshot it
   * asks for comes after every request {@code requiredNow} gives, which may then share it (asked
   * only then: it copies every required request).
   */
  boolean mayShare(BackfillRequest request, Supplier<Collection<BackfillRequest>> requiredNow) {
    if (served.contains(request)) {
      return true;
    }
    served.clear();
    served.addAll(requiredNow.get());
    return false;
  }

  /** An entry written to the log: a row-key change ends the sharing. */
  void observe(ChangeLogEntry entry) {
    if (entry.message() instanceof DataChange.Update u && u.key() != null) {
      served.clear();
    }
  }

  /** No copy may share the current snapshot (it ends, or must not be read again). */
  void forget() {
    served.clear();
  }

  /** Whether a shared snapshot may exist (something may still hold it open). */
  boolean active() {
    return !served.isEmpty();
  }
}
