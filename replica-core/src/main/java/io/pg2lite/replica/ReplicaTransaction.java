package io.pg2lite.replica;

import io.pg2lite.protocol.message.Change;
import io.pg2lite.protocol.message.DataChange;
import io.pg2lite.protocol.message.SchemaChange;
import io.pg2lite.protocol.watermark.Watermark;
import io.pg2lite.replica.changelog.RowChangeLog;
import io.pg2lite.replica.file.ReplicaFile;
import io.pg2lite.replica.file.ReplicaState;
import io.pg2lite.replica.merge.BackfillMerge;
import io.pg2lite.replica.rows.RowWriter;
import io.pg2lite.replica.schema.ReplicaSchema;
import java.sql.SQLException;

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
 */
public final class ReplicaTransaction {
  private final Replica replica;
  private final ReplicaFile file;
  private final ReplicaSchema schema;
  private final RowChangeLog changeLog;
  private final RowWriter rows;
  private final BackfillMerge backfill;
  private final Watermark watermark;
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
      file.writeState(state);
      file.releaseSavepoint();
    });
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
