package io.pg2lite.replica.lineage;

import io.pg2lite.protocol.codec.ChangeLogCodec;
import io.pg2lite.protocol.codec.ProtocolException;
import io.pg2lite.protocol.message.ChangeLogEntry;
import io.pg2lite.protocol.parts.PartJoiner;
import io.pg2lite.replica.apply.ApplyException;
import io.pg2lite.replica.apply.LogContinuity;
import io.pg2lite.replica.apply.ReplicaApplier;
import io.pg2lite.replica.Replica;
import io.pg2lite.replica.ReplicaException;
import io.pg2lite.replica.file.ReplicaState;

/**
 * One replica file fed the change log in order: the rule that no record is missed or taken twice
 * ({@link LogContinuity}), the joining of split messages ({@link PartJoiner}), and the
 * {@link ReplicaApplier}. The published replica has one, and so has a replica being built for a
 * new lineage: each keeps its own position, so a record taken by one is never counted by the
 * other.
 *
 * <p>Invariant: the continuity rule and the joiner follow on from what the applier has applied;
 * {@link #abort} puts all three back to what the file holds.
 */
final class ReplicaFeed implements AutoCloseable {
  private final ChangeLogCodec codec;
  private final Replica replica;
  private final ReplicaApplier applier;
  private final LogContinuity continuity = new LogContinuity();
  private final PartJoiner parts;
  private boolean closed;

  ReplicaFeed(ChangeLogCodec codec, Replica replica, ReplicaApplier applier) {
    this.codec = codec;
    this.replica = replica;
    this.applier = applier;
    this.parts = new PartJoiner(codec);
    continuity.restart(applier.committed());
  }

  /**
   * Applies the record if it is the next one: returns its entry (a split message's whole entry at
   * its last part); null when it was taken before, or is a part of a message still incomplete.
   *
   * @throws LogContinuity.LogGapException when it does not follow the last record taken
   * @throws ApplyException when it does not decode or cannot be applied (rolled back)
   */
  ChangeLogEntry take(ChangeLogRecord r) {
    if (!continuity.admit(r.topic(), r.partition(), r.offset(), r.seq())) {
      return null;
    }
    ChangeLogEntry entry;
    try {
      entry = parts.accept(decode(r));
    } catch (ProtocolException e) {
      throw malformed(r, e);
    }
    if (entry != null) {
      applier.apply(entry, r.replicaVersion(), r.topic(), r.partition(), r.offset(), r.seq());
    }
    return entry;
  }

  /** The record's entry, decoded but not applied (a part stays a part). */
  ChangeLogEntry decode(ChangeLogRecord r) {
    try {
      return codec.decode(r.value());
    } catch (ProtocolException e) {
      throw malformed(r, e);
    }
  }

  private static ApplyException malformed(ChangeLogRecord r, ProtocolException e) {
    return new ApplyException(r.topic(), r.partition(), r.offset(), "?", e.getMessage(), e);
  }

  /** The next record taken must be the one at {@code offset} with number {@code seq} (a new lineage's begin). */
  void startAt(long offset, Long seq) {
    continuity.startAt(offset, seq);
    parts.reset();
  }

  /** Commits the complete upstream transactions applied so far (an open one stays open). */
  void flush() {
    applier.flush();
  }

  /** Rolls back what is not committed; the next record must follow what the file holds. */
  void abort() {
    applier.abort();
    continuity.restart(applier.committed());
    parts.reset();
  }

  ReplicaState committed() {
    return applier.committed();
  }

  /** {@link #committed()} and the upstream transactions applied since, not yet committed. */
  ReplicaState applied() {
    return applier.applied();
  }

  boolean inTransaction() {
    return applier.inTransaction();
  }

  /** The offset of the last record taken, -1 before any. */
  long lastOffset() {
    return continuity.lastOffset();
  }

  Replica replica() {
    return replica;
  }

  /** Rolls back what is not committed and closes the file; a second close does nothing. */
  @Override
  public void close() throws ReplicaException {
    if (!closed) {
      closed = true;
      applier.abort();
      replica.close();
    }
  }
}
