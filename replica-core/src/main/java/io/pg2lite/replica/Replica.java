package io.pg2lite.replica;

import io.pg2lite.protocol.message.Verify;
import io.pg2lite.protocol.watermark.Watermark;
import io.pg2lite.replica.changelog.RowChangeLog;
import io.pg2lite.replica.file.ReplicaFile;
import io.pg2lite.replica.file.ReplicaState;
import io.pg2lite.replica.file.StateTable;
import io.pg2lite.replica.file.Statements;
import io.pg2lite.replica.merge.BackfillMerge;
import io.pg2lite.replica.merge.KeyChange;
import io.pg2lite.replica.rows.RowWriter;
import io.pg2lite.replica.schema.ReplicaSchema;
import io.pg2lite.replica.schema.TableCopies;
import io.pg2lite.replica.verify.ReplicaVerifier;
import io.pg2lite.replica.verify.VerifyListener;
import io.pg2lite.replica.verify.VerifyRows;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A replica: the file, its schema, its row writers and the backfill merge, behind the operations
 * the sink (and a follower) needs. The entry point into the replica packages, and the place where
 * a {@link SQLException} becomes a {@link ReplicaException}.
 *
 * <p>Changes are applied through a {@link ReplicaTransaction} ({@link #begin}): one per upstream
 * transaction, in a savepoint of the SQLite transaction, which {@link #commit} ends. Who applies
 * what inside: schema changes go to {@link ReplicaSchema}, {@code backfill} messages to
 * {@link BackfillMerge}, every other row change to {@link RowWriter}; the last two tell (and read)
 * the {@link RowChangeLog}. Pending batched inserts run before a close; every prepared statement
 * is closed before a schema change and after a rollback, since it was prepared against the old
 * schema.
 *
 * <p>Verifications: a committed upstream transaction that carried {@code verify} messages hands
 * them over ({@link #verifyOnCommit}); they wait for the SQLite commit that makes them durable,
 * and {@link #commit} then hands them to the {@link ReplicaVerifier} before it returns, so its
 * reader is pinned at that commit and no later one. A rollback forgets them with the transaction.
 */
public final class Replica implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(Replica.class);
  private final ReplicaFile file;
  private final Statements statements;
  private final ReplicaSchema schema;
  private final RowChangeLog changeLog;
  private final RowWriter rows;
  private final BackfillMerge backfill;
  private final ReplicaVerifier verifier;
  /** Verify messages of upstream transactions committed in the open SQLite transaction, by commit watermark. */
  private final List<Verifying> uncommittedVerifies = new ArrayList<>();
  /** The upstream transaction begun and not yet ended; null between them. */
  private ReplicaTransaction open;

  private record Verifying(String watermark, List<Verify> verifies) {}

  private Replica(ReplicaFile file, int busyTimeoutMs, VerifyListener verify) throws SQLException {
    this.file = file;
    this.statements = new Statements(file.connection());
    this.schema = new ReplicaSchema(file.connection());
    this.changeLog = new RowChangeLog(statements);
    this.rows = new RowWriter(statements, schema, changeLog, new KeyChange(statements, changeLog));
    this.backfill = new BackfillMerge(statements, schema, changeLog);
    int stopped = VerifyRows.markRestarted(file.connection(), Instant.now());
    if (stopped > 0) {
      LOG.info("{} verified table(s) of {} were pending when the replica last stopped: recorded as not compared",
          stopped, file.path());
    }
    this.verifier = new ReplicaVerifier(file.path(), file.wal(), busyTimeoutMs, verify);
  }

  /** Opens (creating if needed) the replica at {@code path}; its verifications are only logged. */
  public static Replica open(Path path, String journalMode, String synchronous, int busyTimeoutMs)
      throws ReplicaException {
    return open(path, journalMode, synchronous, busyTimeoutMs, VerifyListener.LOG);
  }

  /** Opens (creating if needed) the replica at {@code path}; {@code verify} is told each verification's outcome. */
  public static Replica open(Path path, String journalMode, String synchronous, int busyTimeoutMs,
      VerifyListener verify) throws ReplicaException {
    try {
      ReplicaFile f = ReplicaFile.open(path, journalMode, synchronous, busyTimeoutMs);
      try {
        return new Replica(f, busyTimeoutMs, verify);
      } catch (SQLException | RuntimeException e) {
        f.close();
        throw e;
      }
    } catch (SQLException e) {
      throw new ReplicaException(e);
    }
  }

  /**
   * The position the file at {@code path} holds, read through a read-only connection of its own;
   * {@link ReplicaState#EMPTY} when it has applied nothing (or is not a replica).
   */
  public static ReplicaState stateOf(Path path, int busyTimeoutMs) throws ReplicaException {
    try (Connection c = ReplicaFile.connect(path, busyTimeoutMs, true)) {
      return StateTable.readIfPresent(c);
    } catch (SQLException e) {
      throw new ReplicaException(e);
    }
  }

  /** How far the replica's tables are copied: whole once none waits for a copy. Outside a transaction, the committed rows. */
  public TableCopies copies() throws ReplicaException {
    return sqlValue(schema::copies);
  }

  /**
   * Checkpoints the WAL into the main file ({@link ReplicaFile#checkpoint}); false when readers
   * kept part of it there. Never inside a transaction. The prepared statements are closed first:
   * one left mid-read would hold the file (SQLITE_LOCKED). A truncating checkpoint (before a swap
   * closes the replica) first stops the verifications under way: their readers' snapshots would
   * make it wait the whole busy timeout; their rows stay pending, recorded as not compared when
   * the file is opened again.
   */
  public boolean checkpoint(boolean truncate) throws ReplicaException {
    if (truncate) {
      verifier.close();
    }
    return sqlValue(() -> {
      closeStatements();
      return file.checkpoint(truncate);
    });
  }

  /** Caps the file at about {@code bytes} (0 = no cap); a write past it fails with SQLITE_FULL. */
  public void limitSize(long bytes) throws ReplicaException {
    sql(() -> file.limitSize(bytes));
  }

  /**
   * Lowers the longest value the replica stores (SQLite's length limit; see
   * {@link io.pg2lite.replica.lite.ValueLength}), so tests reach it without 1 GB values.
   */
  public void limitValueLength(int bytes) throws ReplicaException {
    sql(() -> statements.limitLength(bytes));
  }

  /** The position the file holds (what a restart resumes from). */
  public ReplicaState state() throws ReplicaException {
    return sqlValue(file::state);
  }

  /**
   * Begins an upstream transaction at its pre-commit watermark: opens the SQLite transaction if
   * none is open (it may already hold earlier upstream transactions) and a savepoint for this one.
   * One upstream transaction at a time: the returned one must end before the next begins.
   */
  public ReplicaTransaction begin(Watermark watermark) throws ReplicaException {
    if (open != null) {
      throw new IllegalStateException("begin at " + watermark + " inside the open upstream transaction at "
          + open.watermark());
    }
    sql(() -> {
      file.beginIfNeeded();
      file.savepoint();
    });
    open = new ReplicaTransaction(this, file, schema, changeLog, rows, backfill, watermark);
    return open;
  }

  /** The upstream transaction ended (committed or rolled back in its savepoint). */
  void ended(ReplicaTransaction tx) {
    if (open == tx) {
      open = null;
    }
  }

  /**
   * Commits the SQLite transaction, and with it every upstream transaction committed in it, if one
   * is open. Never while an upstream transaction is open: that would split it.
   */
  public void commit() throws ReplicaException {
    if (open != null) {
      throw new IllegalStateException("commit inside the open upstream transaction at " + open.watermark()
          + ": it would split it");
    }
    sql(file::commit);
    for (Verifying v : uncommittedVerifies) {
      verifier.verifyAt(v.watermark(), v.verifies());
    }
    uncommittedVerifies.clear();
  }

  /**
   * The upstream transaction committed at {@code watermark} (in the SQLite transaction) carried
   * {@code verifies}: they are verified once {@link #commit} makes it durable.
   */
  void verifyOnCommit(String watermark, List<Verify> verifies) {
    uncommittedVerifies.add(new Verifying(watermark, List.copyOf(verifies)));
  }

  /**
   * Discards everything since the last {@link #commit}: the SQLite transaction, any upstream
   * transaction still open in it, and what the writers buffered; the schema is reloaded, since
   * undone DDL may have changed it. Statements and schema are reset even when {@code ROLLBACK}
   * fails: after {@code SQLITE_FULL} or an I/O error SQLite has rolled the transaction back
   * itself and refuses {@code ROLLBACK} ("no transaction is active"), and the sink goes on.
   */
  public void rollback() throws ReplicaException {
    if (open != null) {
      open.endedByRollback();
      open = null;
    }
    changeLog.discard();
    rows.discard();
    uncommittedVerifies.clear();
    sql(() -> {
      try {
        file.rollback();
      } finally {
        closeStatements();
        schema.reload();
      }
    });
  }

  @Override
  public void close() throws ReplicaException {
    verifier.close();
    sql(() -> {
      closeStatements();
      file.close();
    });
  }

  /** Runs pending inserts, then closes every prepared statement (they hold the old schema). */
  void closeStatements() throws SQLException {
    rows.schemaChanging();
    statements.closeAll();
  }

  interface SqlWork {
    void run() throws SQLException;
  }

  static void sql(SqlWork work) throws ReplicaException {
    try {
      work.run();
    } catch (SQLException e) {
      throw new ReplicaException(e);
    }
  }

  interface SqlValue<T> {
    T get() throws SQLException;
  }

  static <T> T sqlValue(SqlValue<T> work) throws ReplicaException {
    try {
      return work.get();
    } catch (SQLException e) {
      throw new ReplicaException(e);
    }
  }
}
