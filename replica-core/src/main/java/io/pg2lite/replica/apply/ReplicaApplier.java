package io.pg2lite.replica.apply;

import io.pg2lite.protocol.message.Begin;
import io.pg2lite.protocol.message.Change;
import io.pg2lite.protocol.message.ChangeLogEntry;
import io.pg2lite.protocol.message.Commit;
import io.pg2lite.protocol.message.Rollback;
import io.pg2lite.protocol.watermark.Watermark;
import io.pg2lite.replica.Replica;
import io.pg2lite.replica.ReplicaException;
import io.pg2lite.replica.ReplicaTransaction;
import io.pg2lite.replica.file.ReplicaState;

/**
 * Applies the change log to a replica, record by record: a small state machine.
 *
 * <p>States: idle, or inside an upstream transaction (applying, or skipping one the replica has
 * already applied: its begin's watermark is at or below the replica's). Transitions: begin opens
 * a {@link ReplicaTransaction}; data changes apply in stream order; commit hands it the replica
 * state (watermark, topic, partition, offset of the commit record, replica version) to write with
 * the data; rollback discards it. A begin inside a transaction, data or an end outside one, a
 * commit below its pre-commit watermark or with another change count, a foreign replica version:
 * each is an {@link ApplyException}, after which everything not yet committed to SQLite is rolled
 * back.
 *
 * <p>Coalescing: several upstream transactions may share one SQLite transaction (each in its own
 * savepoint) until {@link #flush()} or the limit; an upstream transaction is never split across
 * SQLite transactions. An upstream transaction carrying {@code verify} messages ends the SQLite
 * transaction at once, so the replica is verified at its position exactly (ADR 0040). Invariant:
 * {@link #committed()} is exactly what the replica file holds.
 */
public final class ReplicaApplier {
  private final Replica replica;
  private final int maxTransactionsPerCommit;
  private ReplicaState committed;
  private ReplicaState applied;
  private OpenTx open;
  private int pending;

  /** The upstream transaction between its begin and its end. */
  private static final class OpenTx {
    final Watermark watermark;
    /** Null when skipping one the replica has applied already. */
    final ReplicaTransaction tx;
    long changes;

    OpenTx(Watermark watermark, ReplicaTransaction tx) {
      this.watermark = watermark;
      this.tx = tx;
    }
  }

  public ReplicaApplier(Replica replica, int maxTransactionsPerCommit) throws ReplicaException {
    this.replica = replica;
    this.maxTransactionsPerCommit = maxTransactionsPerCommit;
    this.committed = replica.state();
    this.applied = committed;
  }

  /** The state the replica file holds (what a restart resumes from). */
  public ReplicaState committed() {
    return committed;
  }

  /**
   * The state the replica will hold once what is applied is committed: {@link #committed()} plus
   * the upstream transactions since, which the next SQLite commit makes durable.
   */
  public ReplicaState applied() {
    return applied;
  }

  public boolean inTransaction() {
    return open != null;
  }

  /**
   * Applies one record at {@code offset} of {@code topic}-{@code partition}; {@code replicaVersion}
   * is the record's lineage header (null if absent).
   */
  public void apply(ChangeLogEntry e, String replicaVersion, String topic, int partition, long offset) {
    apply(e, replicaVersion, topic, partition, offset, null);
  }

  /**
   * As {@link #apply(ChangeLogEntry, String, String, int, long)}, for a record with sequence
   * number {@code seq} (null when it carries none), which a commit stores with the offset.
   */
  public void apply(ChangeLogEntry e, String replicaVersion, String topic, int partition, long offset, Long seq) {
    try {
      if (e.message() instanceof Begin) {
        begin(e, replicaVersion);
      } else if (e.message() instanceof Change c) {
        change(e, c);
      } else if (e.message() instanceof Commit c) {
        commit(e, c, replicaVersion, topic, partition, offset, seq);
      } else if (e.message() instanceof Rollback) {
        rollback(e);
      } else {
        throw new IllegalStateException("unhandled message " + e.message().tag());
      }
    } catch (ApplyException ex) {
      abort();
      throw ex;
    } catch (ReplicaException | RuntimeException ex) {
      abort();
      throw new ApplyException(topic, partition, offset, e.watermark().toString(), reason(ex), ex);
    }
  }

  /** A violation's message; for anything else its type too (for SQLite's failures, the driver's type). */
  private static String reason(Exception ex) {
    if (ex instanceof Violation) {
      return ex.getMessage();
    }
    return ex instanceof ReplicaException r ? r.reason() : ex.getClass().getSimpleName() + ": " + ex.getMessage();
  }

  /** A protocol violation; the message is the reason. */
  private static final class Violation extends RuntimeException {
    private static final long serialVersionUID = 1L;

    Violation(String message) {
      super(message);
    }
  }

  private void begin(ChangeLogEntry e, String replicaVersion) throws ReplicaException {
    if (open != null) {
      throw new Violation("begin inside the open transaction at " + open.watermark);
    }
    if (replicaVersion != null && applied.replicaVersion() != null && !replicaVersion.equals(applied.replicaVersion())) {
      throw new Violation("the record belongs to replica version " + replicaVersion + " but this replica was built "
          + "from replica version " + applied.replicaVersion() + " (the source's slot was recreated, or the replica "
          + "belongs to another source); resync the replica");
    }
    boolean skip = !applied.isEmpty() && !e.watermark().isAfter(applied.lastCommit());
    open = new OpenTx(e.watermark(), skip ? null : replica.begin(e.watermark()));
  }

  private void change(ChangeLogEntry e, Change c) throws ReplicaException {
    if (open == null) {
      throw new Violation(c.tag() + " outside a transaction");
    }
    open.changes++;
    if (open.tx != null) {
      open.tx.apply(c);
    }
  }

  private void commit(ChangeLogEntry e, Commit c, String replicaVersion, String topic, int partition, long offset,
      Long seq) throws ReplicaException {
    if (open == null) {
      throw new Violation("commit outside a transaction");
    }
    if (e.watermark().compareTo(open.watermark) < 0) {
      throw new Violation("commit watermark " + e.watermark() + " is below its pre-commit watermark " + open.watermark);
    }
    if (c.changes() != open.changes) {
      throw new Violation("commit counts " + c.changes() + " changes but " + open.changes + " arrived: a record was "
          + "lost or duplicated");
    }
    OpenTx ending = open;
    open = null;
    if (ending.tx == null) {
      return;
    }
    String version = replicaVersion != null ? replicaVersion : applied.replicaVersion();
    applied = new ReplicaState(version, e.watermark().toString(), topic, partition, offset, seq);
    ending.tx.commit(applied);
    // A verify's digest must be of exactly this position: committed now, before anything after it.
    if (++pending >= maxTransactionsPerCommit || ending.tx.verifies()) {
      flush();
    }
  }

  private void rollback(ChangeLogEntry e) throws ReplicaException {
    if (open == null) {
      throw new Violation("rollback outside a transaction");
    }
    OpenTx ending = open;
    open = null;
    if (ending.tx != null) {
      ending.tx.rollback();
    }
  }

  /**
   * Commits the SQLite transaction if it holds complete upstream transactions and none is open;
   * an open one keeps it open (never split).
   */
  public void flush() {
    if (open != null || pending == 0) {
      return;
    }
    try {
      replica.commit();
      committed = applied;
      pending = 0;
    } catch (ReplicaException e) {
      abort();
      throw new ApplyException(applied.topic(), applied.partition(), applied.offset(), applied.watermark(),
          "SQLite commit failed: " + e.getMessage(), e);
    }
  }

  /** Rolls back everything not yet committed to SQLite. */
  public void abort() {
    try {
      replica.rollback();
    } catch (ReplicaException ignored) {
      // The connection is gone: nothing uncommitted survives anyway.
    }
    open = null;
    pending = 0;
    applied = committed;
  }
}
