package io.pg2lite.replica;

import io.pg2lite.protocol.message.Change;
import io.pg2lite.protocol.message.DataChange;
import io.pg2lite.protocol.message.SchemaChange;
import io.pg2lite.protocol.message.Verify;
import io.pg2lite.protocol.watermark.Watermark;
import io.pg2lite.replica.changelog.RowChangeLog;
import io.pg2lite.replica.file.ReplicaFile;
import io.pg2lite.replica.file.ReplicaState;
import io.pg2lite.replica.merge.BackfillMerge;
import io.pg2lite.replica.rows.RowWriter;
import io.pg2lite.replica.schema.ReplicaSchema;
import io.pg2lite.replica.verify.VerifyRows;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;

/**
 * One upstream transaction being applied to a replica ({@link Replica#begin}): its changes,
 * then exactly one of {@link #commit} or {@link #rollback}. Zero-cache's replicator
 * {@code TransactionProcessor} is the model.
 *
 * <p>It lives in a savepoint of the replica's SQLite transaction, which several upstream
 * transactions may share (the sink coalesces them; {@link Replica#commit} ends the SQLite
 * transaction). So an upstream transaction is all or nothing inside SQLite's, and SQLite's commit
 * makes whole upstream transactions durable, never part of one.
 *
 * <p>The rule this class keeps, and no other: at {@link #commit}, the pending row inserts run, then
 * the row change log's records of the transaction are written, then the state row (watermark,
 * topic, partition, offset of the commit record), all in the savepoint, so the data, its change
 * log and the position that says "applied up to here" can only become durable together.
 *
 * <p>Ordering inside: pending batched inserts run before a backfill and a schema change, so
 * whatever follows sees them; every prepared statement is closed before a schema change, since it
 * was prepared against the old schema; a rollback forgets pending inserts and change-log records,
 * and reloads the schema if the transaction changed it.
 *
 * <p>A {@code verify} message changes no row: it is kept until {@link #commit}, which records it
 * as pending in {@code _pg2lite.verify} at the commit's watermark (known only then), in the
 * savepoint with the state row, and hands it to the replica to verify once SQLite has committed.
 * Whoever applies must then commit SQLite at once ({@link #verifies()}), so the position verified
 * is this transaction's and no later one.
 */
public final class ReplicaTransaction {
  private final Replica replica;
  private final ReplicaFile file;
  private final ReplicaSchema schema;
  private final RowChangeLog changeLog;
  private final RowWriter rows;
  private final BackfillMerge backfill;
  private final Watermark watermark;
  private final List<Verify> verifies = new ArrayList<>();
  private boolean schemaChanged;
  private boolean ended;

  ReplicaTransaction(Replica replica, ReplicaFile file, ReplicaSchema schema, RowChangeLog changeLog, RowWriter rows,
      BackfillMerge backfill, Watermark watermark) {
    this.replica = replica;
    this.file = file;
    this.schema = schema;
    this.changeLog = changeLog;
    this.rows = rows;
    this.backfill = backfill;
    this.watermark = watermark;
  }

  /** The transaction's pre-commit watermark, at which its row changes are versioned. */
  public Watermark watermark() {
    return watermark;
  }

  /** Applies one change, in stream order. */
  public void apply(Change change) throws ReplicaException {
    requireOpen();
    Replica.sql(() -> {
      if (change instanceof DataChange.Backfill b) {
        rows.flush();
        backfill.apply(b);
      } else if (change instanceof DataChange d) {
        rows.apply(d, watermark);
      } else if (change instanceof SchemaChange s) {
        replica.closeStatements();
        schema.apply(s);
        schemaChanged = true;
      } else if (change instanceof Verify v) {
        verifies.add(v);
      } else {
        throw new IllegalStateException("unhandled change " + change.tag());
      }
    });
  }

  /**
   * Keeps the transaction: its rows, its change-log records at the commit's watermark, and
   * {@code state} (the position of its commit record) as the replica's state, in the SQLite
   * transaction. Durable once {@link Replica#commit} commits that.
   */
  public void commit(ReplicaState state) throws ReplicaException {
    requireOpen();
    ended = true;
    replica.ended(this);
    Replica.sql(() -> {
      rows.flush();
      changeLog.commit(state.lastCommit());
      for (Verify v : verifies) {
        VerifyRows.insertPending(file.connection(), v, state.watermark());
      }
      file.writeState(state);
      file.releaseSavepoint();
    });
    if (!verifies.isEmpty()) {
      replica.verifyOnCommit(state.watermark(), verifies);
    }
  }

  /** Whether the transaction carries {@code verify} messages: then SQLite must commit right after it. */
  public boolean verifies() {
    return !verifies.isEmpty();
  }

  /** Discards the transaction, keeping the earlier ones of the SQLite transaction. */
  public void rollback() throws ReplicaException {
    requireOpen();
    ended = true;
    replica.ended(this);
    changeLog.discard();
    rows.discard();
    Replica.sql(() -> {
      file.rollbackToSavepoint();
      if (schemaChanged) {
        replica.closeStatements();
        schema.reload();
      }
    });
  }

  /** {@link Replica#rollback} discarded the whole SQLite transaction, this one with it. */
  void endedByRollback() {
    ended = true;
  }

  private void requireOpen() {
    if (ended) {
      throw new IllegalStateException("the transaction at " + watermark + " has ended");
    }
  }
}
