package io.pg2lite.sink.replica;

import io.pg2lite.protocol.message.Change;
import io.pg2lite.protocol.message.DataChange;
import io.pg2lite.protocol.message.SchemaChange;
import io.pg2lite.protocol.watermark.Watermark;
import io.pg2lite.sink.replica.changelog.RowChangeLog;
import io.pg2lite.sink.replica.file.ReplicaFile;
import io.pg2lite.sink.replica.file.ReplicaState;
import io.pg2lite.sink.replica.file.Statements;
import io.pg2lite.sink.replica.merge.BackfillMerge;
import io.pg2lite.sink.replica.merge.KeyChange;
import io.pg2lite.sink.replica.rows.RowWriter;
import io.pg2lite.sink.replica.schema.ReplicaSchema;
import java.nio.file.Path;
import java.sql.SQLException;

/**
 * A replica: the file, its schema, its row writers and the backfill merge, behind the operations
 * the applier needs. The sink's entry point into the replica packages, and the place where a
 * {@link SQLException} becomes a {@link ReplicaException}.
 *
 * <p>Who applies what: schema changes go to {@link ReplicaSchema}, {@code backfill} messages to
 * {@link BackfillMerge}, every other row change to {@link RowWriter}; the last two tell (and read)
 * the {@link RowChangeLog}. Ordering rules this class keeps:
 * <ul>
 *   <li>pending batched inserts run before a backfill, a schema change, a commit and a close, so
 *       whatever follows sees them; a rollback forgets them;</li>
 *   <li>every prepared statement is closed before a schema change and after a rollback that may
 *       have undone one (and the schema reloaded), since it was prepared against the old schema;</li>
 *   <li>the change log's records of an upstream transaction are written at its commit
 *       ({@link #committing}), before the state row, in the same SQLite transaction.</li>
 * </ul>
 */
public final class Replica implements AutoCloseable {
  private final ReplicaFile file;
  private final Statements statements;
  private final ReplicaSchema schema;
  private final RowChangeLog changeLog;
  private final RowWriter rows;
  private final BackfillMerge backfill;

  private Replica(ReplicaFile file) throws SQLException {
    this.file = file;
    this.statements = new Statements(file.connection());
    this.schema = new ReplicaSchema(file.connection());
    this.changeLog = new RowChangeLog(statements);
    this.rows = new RowWriter(statements, schema, changeLog, new KeyChange(statements, changeLog));
    this.backfill = new BackfillMerge(statements, schema, changeLog);
  }

  /** Opens (creating if needed) the replica at {@code path}. */
  public static Replica open(Path path, String journalMode, String synchronous, int busyTimeoutMs)
      throws ReplicaException {
    try {
      ReplicaFile f = ReplicaFile.open(path, journalMode, synchronous, busyTimeoutMs);
      try {
        return new Replica(f);
      } catch (SQLException | RuntimeException e) {
        f.close();
        throw e;
      }
    } catch (SQLException e) {
      throw new ReplicaException(e);
    }
  }

  /** Caps the file at about {@code bytes} (0 = no cap); a write past it fails with SQLITE_FULL. */
  public void limitSize(long bytes) throws ReplicaException {
    sql(() -> file.limitSize(bytes));
  }

  /** The position the file holds (what a restart resumes from). */
  public ReplicaState state() throws ReplicaException {
    try {
      return file.state();
    } catch (SQLException e) {
      throw new ReplicaException(e);
    }
  }

  /** Applies one change of an upstream transaction at watermark {@code version}. */
  public void apply(Change change, Watermark version) throws ReplicaException {
    sql(() -> {
      if (change instanceof DataChange.Backfill b) {
        rows.flush();
        backfill.apply(b);
      } else if (change instanceof DataChange d) {
        rows.apply(d, version);
      } else if (change instanceof SchemaChange s) {
        closeStatements();
        schema.apply(s);
      } else {
        throw new IllegalStateException("unhandled change " + change.tag());
      }
    });
  }

  /** Called at an upstream commit, before the state row is written: records row operations at {@code commit}. */
  public void committing(Watermark commit) throws ReplicaException {
    sql(() -> {
      rows.flush();
      changeLog.commit(commit);
    });
  }

  /** Called when an upstream transaction is rolled back or aborted. */
  public void discarded() {
    changeLog.discard();
    rows.discard();
  }

  /** After a rollback the cached schema may describe undone DDL: reload it and drop prepared statements. */
  public void reloadSchema() throws ReplicaException {
    sql(() -> {
      closeStatements();
      schema.reload();
    });
  }

  /** Opens the SQLite transaction if none is open ({@link ReplicaFile#beginIfNeeded}). */
  public void beginIfNeeded() throws ReplicaException {
    sql(file::beginIfNeeded);
  }

  /** Starts one upstream transaction inside the SQLite transaction. */
  public void savepoint() throws ReplicaException {
    sql(file::savepoint);
  }

  /** Keeps the upstream transaction's changes (they commit with the SQLite transaction). */
  public void releaseSavepoint() throws ReplicaException {
    sql(file::releaseSavepoint);
  }

  /** Discards the upstream transaction's changes, keeping earlier ones of the SQLite transaction. */
  public void rollbackToSavepoint() throws ReplicaException {
    sql(file::rollbackToSavepoint);
  }

  /** Writes the state row; must run inside the transaction whose data it describes. */
  public void writeState(ReplicaState state) throws ReplicaException {
    sql(() -> file.writeState(state));
  }

  /** Commits the SQLite transaction, if one is open. */
  public void commit() throws ReplicaException {
    sql(file::commit);
  }

  /** Discards everything since the last commit. */
  public void rollback() throws ReplicaException {
    sql(file::rollback);
  }

  @Override
  public void close() throws ReplicaException {
    sql(() -> {
      closeStatements();
      file.close();
    });
  }

  /** Runs pending inserts, then closes every prepared statement (they hold the old schema). */
  private void closeStatements() throws SQLException {
    rows.schemaChanging();
    statements.closeAll();
  }

  private interface SqlWork {
    void run() throws SQLException;
  }

  private static void sql(SqlWork work) throws ReplicaException {
    try {
      work.run();
    } catch (SQLException e) {
      throw new ReplicaException(e);
    }
  }
}
