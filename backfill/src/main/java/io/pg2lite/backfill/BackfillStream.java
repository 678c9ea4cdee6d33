package io.pg2lite.backfill;

import io.pg2lite.connect.hold.TestHolds;
import io.pg2lite.backfill.copy.TableCopy;
import io.pg2lite.backfill.copy.TableCopySource;
import io.pg2lite.backfill.schedule.BackfillScheduler;
import io.pg2lite.backfill.schedule.MainStreamState;
import io.pg2lite.backfill.state.BackfillRequestsCodec;
import io.pg2lite.backfill.state.BackfillStateMachine;
import io.pg2lite.backfill.state.BackfillFailedException;
import io.pg2lite.backfill.state.CopyFailures;
import io.pg2lite.backfill.state.MissingRowKeyException;
import io.pg2lite.backfill.state.RunningBackfill;
import io.pg2lite.protocol.message.Begin;
import io.pg2lite.protocol.message.ChangeLogEntry;
import io.pg2lite.protocol.message.Commit;
import io.pg2lite.protocol.message.DataChange;
import io.pg2lite.protocol.message.SchemaChange;
import io.pg2lite.protocol.value.Value;
import io.pg2lite.protocol.watermark.Watermark;
import java.util.ArrayList;
import java.util.List;
import java.util.function.LongSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The backfill side of the multiplexer: writes backfill transactions between main-stream
 * transactions when {@link BackfillScheduler} allows, for the copy {@link BackfillStateMachine}
 * chose.
 *
 * <p>Watermarks: a backfill transaction gets {@code W.next minor} where W is the last commit
 * watermark written (main or backfill), so it sorts after everything before it and before the
 * next main-stream transaction (whose pre-commit watermark is the next major). All its entries
 * carry that watermark. Backfill transactions hold no upstream position: they are never
 * acknowledged to Postgres.
 *
 * <p>{@code backfill-completed} is written only once the log has reached the snapshot's
 * watermark (a commit at or after it was written), so main-stream changes older than the
 * snapshot, which may briefly overwrite copied values, have all been applied; and its transaction's
 * watermark is then above the snapshot's, so a replica's state version never trails the versions
 * of the rows the copy wrote.
 *
 * <p>The caller feeds every entry it writes, main stream and backfill, through {@link #observe},
 * in log order.
 */
public final class BackfillStream implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(BackfillStream.class);
  /**
   * Values per backfill record, estimated: with JSON's quoting and names, a record stays well
   * under Kafka's default 1 MB limit on a record (max.request.size, max.message.bytes).
   */
  static final long MAX_RECORD_VALUE_BYTES = 256 * 1024;

  private final BackfillStateMachine state;
  private final TableCopySource source;
  private final BackfillScheduler scheduler;
  private final int batchRows;
  private final LongSupplier clockMillis;
  private Watermark lastWritten;
  private RunningBackfill run;
  private TableCopy copy;
  /** A copy being opened in the background (snapshot, count, first rows); null when none. */
  private java.util.concurrent.CompletableFuture<TableCopy> opening;
  /** Where copies are opened; null: inline, on the caller's thread (tests). */
  private java.util.concurrent.ExecutorService opener;
  private boolean copyFinished;
  private long cachedVersion = -1;
  private long maxRowsPerSecond;
  private long pausedUntil = Long.MIN_VALUE;
  private String cachedJson;
  /** No backfill transaction until a commit at or above this is written; null when none is due. */
  private Watermark holdUntil;
  /** Which copies may read the copy source's shared snapshot. */
  private final SnapshotSharing sharing = new SnapshotSharing();
  /** Whether the copy being opened reads the shared snapshot (so opening it is only queries). */
  private boolean openingShares;
  /**
   * {@code backfill-completed} entries of the transaction being built, which the state machine
   * was told of as they were added (so the next copy can start in the same transaction); when the
   * caller feeds them to {@link #observe} in log order they are not told again. Equivalent to
   * telling it then: everything written before them was observed already, and nothing between
   * them and their commit changes what the machine decides.
   */
  private final java.util.Set<ChangeLogEntry> observedEarly =
      java.util.Collections.newSetFromMap(new java.util.IdentityHashMap<>());
  /** How long a transaction waits for the next copy's opening on the shared snapshot. */
  static final long CHAIN_WAIT_MS = 50;

  /**
   * @param lastWritten the last commit watermark in the change log (main or backfill)
   */
  public BackfillStream(BackfillStateMachine state, TableCopySource source, BackfillScheduler scheduler,
      int batchRows, Watermark lastWritten, LongSupplier clockMillis) {
    this.state = state;
    this.source = source;
    this.scheduler = scheduler;
    this.batchRows = batchRows;
    this.lastWritten = lastWritten;
    this.clockMillis = clockMillis;
  }

  /**
   * Caps the copy rate (0 = no cap). The log is one ordered stream: a replica applies a live change
   * only after every backfill record before it, so a copy written faster than replicas apply it
   * builds a backlog that live changes wait behind. A cap below the replicas' apply rate keeps that
   * wait to about one backfill transaction.
   */
  public BackfillStream maxRowsPerSecond(long rows) {
    this.maxRowsPerSecond = rows;
    return this;
  }

  /**
   * Opens copies on a thread of its own. Opening one takes a snapshot (a replication slot that
   * waits for running transactions), counts the rows and runs the first query: hundreds of
   * milliseconds on a large table, during which the caller's thread, the source's poll loop,
   * would hold back the live stream. Meanwhile {@link #nextTransaction} returns nothing.
   */
  public BackfillStream openInBackground() {
    this.opener = java.util.concurrent.Executors.newSingleThreadExecutor(r -> {
      Thread t = new Thread(r, "pg2lite-backfill-open");
      t.setDaemon(true);
      return t;
    });
    return this;
  }

  /**
   * Writes no backfill transaction until the log holds a commit at or above {@code watermark}
   * (null: no hold). For a restart whose log ends in a cut live transaction: the last commit
   * before it is unknown, and {@code lastWritten} (the cut transaction's pre-commit watermark) is
   * above the begin it will be written again under, so a backfill {@code lastWritten.k} written
   * before it would make consumers skip it. Its commit clears the hold.
   */
  public BackfillStream holdUntilCommitAtOrAbove(Watermark watermark) {
    this.holdUntil = watermark;
    return this;
  }

  /** One entry written to the change log, in log order. */
  public void observe(ChangeLogEntry entry) {
    sharing.observe(entry);
    if (entry.message() instanceof Commit && !entry.watermark().hasMinor()) {
      scheduler.mainTransactionWritten(clockMillis.getAsLong()); // backfill commits carry a minor
    }
    if (entry.message() instanceof Commit) {
      if (entry.watermark().isAfter(lastWritten)) {
        lastWritten = entry.watermark();
      }
      if (holdUntil != null && !holdUntil.isAfter(entry.watermark())) {
        holdUntil = null;
      }
    }
    if (!observedEarly.remove(entry)) {
      state.observe(entry);
    }
  }

  /** The main stream advanced to {@code watermark} without writing a transaction. */
  public void mainStreamAt(Watermark watermark) {
    // The main stream's next transaction starts above this position, so a backfill transaction
    // may take it as its major: that keeps backfill-completed above the snapshot it reached.
    if (watermark.isAfter(lastWritten)) {
      lastWritten = watermark;
    }
    if (holdUntil != null && !holdUntil.isAfter(watermark)) {
      holdUntil = null; // upstream passed the cut transaction's commit
    }
    state.mainStreamAt(watermark);
  }

  /** The required backfills as JSON, to store with the position of the entries just observed. */
  public String requiredJson() {
    if (state.version() != cachedVersion) {
      cachedVersion = state.version();
      cachedJson = state.hasRequired() ? BackfillRequestsCodec.encode(state.required()) : null;
    }
    return cachedJson;
  }

  /**
   * Whether {@code column} of {@code table} is still to be copied, as of the entries observed: a
   * replica holds NULL in the rows the copy has not reached yet.
   */
  public boolean isCopying(io.pg2lite.protocol.schema.QualifiedName table, String column) {
    return state.required().stream().anyMatch(r -> r.table().equals(table) && r.columns().containsKey(column));
  }

  /**
   * The watermark a transaction written now, between transactions, would take (the next minor of
   * the last commit written, as a backfill transaction's), or null while none may be written
   * ({@link #holdUntilCommitAtOrAbove}). For other low-priority transactions: verifications.
   */
  public Watermark nextTransactionWatermark() {
    return holdUntil != null ? null : lastWritten.nextMinor();
  }

  /** Whether a copy of (any column of) {@code table} is required or under way, as of the entries observed. */
  public boolean isCopyingAny(io.pg2lite.protocol.schema.QualifiedName table) {
    return state.required().stream().anyMatch(r -> r.table().equals(table));
  }

  public boolean hasWork() {
    dropCancelled();
    long now = clockMillis.getAsLong();
    return run != null || (state.hasRequired() && state.retryDelay(now) == 0);
  }

  /**
   * The entries of one backfill transaction to write now, or an empty list when the scheduler
   * says no, nothing is required, or the copy waits for the log to reach its snapshot.
   */
  public List<ChangeLogEntry> nextTransaction(MainStreamState main) {
    long now = clockMillis.getAsLong();
    if (copy == null && opening == null && sharing.active()) {
      // Between copies (a pause, a backoff, a turn the scheduler did not give): a shared snapshot
      // that is no longer young must not keep its tables' locks while nothing reads it.
      if (opener != null) {
        opener.execute(source::releaseIfOld);
      } else {
        source.releaseIfOld();
      }
    }
    if (now < pausedUntil || holdUntil != null) {
      return List.of();
    }
    boolean work = hasWork();
    if (work && opener != null) {
      prepareCopy(now); // opening in the background costs the main stream nothing: start it at once
    }
    int batches = scheduler.batchesAllowed(main, work, now);
    if (batches == 0 || !ensureCopy(now)) {
      return List.of();
    }
    Watermark tx = lastWritten.nextMinor();
    List<ChangeLogEntry> entries = new ArrayList<>();
    entries.add(new ChangeLogEntry(tx, 0, new Begin(null, null, true)));
    long rows = 0;
    try {
      rows = addCopied(tx, entries, batches, scheduler.readDeadline(now), main == MainStreamState.IDLE);
    } catch (BackfillFailedException e) {
      throw e;
    } catch (Exception e) {
      if (run != null) {
        failed(run, e);
      }
      closeCopy();
    }
    if (entries.size() == 1) {
      return List.of();
    }
    entries.add(new ChangeLogEntry(tx, entries.size(), new Commit(entries.size() - 1, null)));
    if (maxRowsPerSecond > 0) {
      pausedUntil = now + rows * 1000 / maxRowsPerSecond;
    }
    return entries;
  }

  /**
   * Adds up to {@code batches} backfill records to the transaction (no new one once the clock passes
   * {@code deadline}), then {@code backfill-completed} if the copy has read everything and the log
   * has reached its snapshot; returns the rows added. A copy that completes with batches and time
   * to spare is followed, in the same transaction, by the next one when that one reads the shared
   * snapshot and the main stream is idle (the wait for its opening would delay a live change):
   * a thousand small tables then take tens of transactions, not a thousand.
   */
  private long addCopied(Watermark tx, List<ChangeLogEntry> entries, int batches, long deadline, boolean mayChain)
      throws Exception {
    long rows = 0;
    int b = 0;
    while (true) {
      for (; b < batches && !copyFinished && (b == 0 || clockMillis.getAsLong() < deadline); b++) {
        if (!TestHolds.admits(TestHolds.COPY, copy.relation().table(), copy.status().rows())) {
          return rows; // held by a test (TestHolds): nothing more of this copy for now
        }
        List<List<Value>> batch = copy.next(batchRows, MAX_RECORD_VALUE_BYTES);
        if (batch.isEmpty()) {
          copyFinished = true;
        } else if (copy.relation().rowKey().columns().isEmpty()) {
          throw new MissingRowKeyException(run.request().key());
        } else {
          entries.add(new ChangeLogEntry(tx, entries.size(), new DataChange.Backfill(copy.relation(), copy.columns(),
              copy.snapshot(), batch, copy.status())));
          rows += batch.size();
          copyFinished = copy.finished();
        }
      }
      if (!copyFinished || !state.reached(copy.snapshot())) {
        return rows;
      }
      ChangeLogEntry completed = new ChangeLogEntry(tx, entries.size(), new SchemaChange.BackfillCompleted(
          copy.relation(), copy.columns(), copy.snapshot(), copy.status()));
      entries.add(completed);
      state.observe(completed); // the next copy may start now (observedEarly)
      observedEarly.add(completed);
      LOG.info("Backfill of {} complete: {} rows from the snapshot at {}", run.request().key(), copy.status().rows(),
          copy.snapshot());
      closeCopy();
      if (!mayChain || b >= batches || clockMillis.getAsLong() >= deadline
          || !continueWithNext(clockMillis.getAsLong())) {
        return rows;
      }
    }
  }

  /**
   * After a copy completed inside a transaction: starts the next, and when it reads the shared
   * snapshot (its opening is a few queries) waits for it up to {@link #CHAIN_WAIT_MS}; true when
   * it is open and the transaction may go on with it.
   */
  private boolean continueWithNext(long now) {
    if (state.retryDelay(now) > 0) {
      return false;
    }
    prepareCopy(now);
    if (run == null || opening == null || !openingShares) {
      return false; // a new snapshot costs more: its opening goes on in the background, for the next turn
    }
    try {
      opening.get(CHAIN_WAIT_MS, java.util.concurrent.TimeUnit.MILLISECONDS);
    } catch (java.util.concurrent.TimeoutException e) {
      return false;
    } catch (java.util.concurrent.ExecutionException e) {
      return false; // the next turn's ensureCopy reports it, outside this transaction
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return false;
    }
    return ensureCopy(now);
  }

  /**
   * Starts the next request and its copy's opening, if none runs, without waiting for it, so that
   * the copy is open by the time the scheduler gives the backfill a turn (a busy main stream gives
   * one per second: a turn spent on opening would delay the copy by a second).
   */
  private void prepareCopy(long now) {
    if (run == null) {
      run = state.startNext(now);
    }
    if (run != null && copy == null && opening == null) {
      opening = open(run.request());
    }
  }

  /** Opens the copy for the running request (starting one if needed); false when there is none. */
  private boolean ensureCopy(long now) {
    if (run == null) {
      run = state.startNext(now);
      if (run == null) {
        return false;
      }
    }
    if (copy == null) {
      if (opening == null) {
        opening = open(run.request());
      }
      if (!opening.isDone()) {
        return false; // the main stream goes on meanwhile
      }
      java.util.concurrent.CompletableFuture<TableCopy> done = opening;
      opening = null;
      try {
        copy = done.join();
        copyFinished = false;
        LOG.info("Backfilling {} ({} of its columns) from the snapshot at {}: {} rows", run.request().key(),
            copy.columns().size(), copy.snapshot(), copy.status().totalRows());
      } catch (java.util.concurrent.CompletionException e) {
        if (!(e.getCause() instanceof Exception cause)) {
          throw e;
        }
        failed(run, cause);
        run = null;
        return false;
      }
    }
    if (run.minSnapshot() != null && copy.snapshot().compareTo(run.minSnapshot()) < 0) {
      LOG.info("Restarting the backfill of {}: a row-key change at {} postdates its snapshot at {}",
          run.request().key(), run.minSnapshot(), copy.snapshot());
      releaseSnapshot();
      state.abandoned(run);
      closeCopy();
      return false;
    }
    return true;
  }

  private java.util.concurrent.CompletableFuture<TableCopy> open(io.pg2lite.backfill.state.BackfillRequest request) {
    boolean share = sharing.mayShare(request, state::required);
    openingShares = share;
    if (opener == null) {
      try {
        return java.util.concurrent.CompletableFuture.completedFuture(source.open(request, share));
      } catch (Exception e) {
        return java.util.concurrent.CompletableFuture.failedFuture(e);
      }
    }
    return java.util.concurrent.CompletableFuture.supplyAsync(() -> {
      try {
        return source.open(request, share);
      } catch (Exception e) {
        throw new java.util.concurrent.CompletionException(e);
      }
    }, opener);
  }

  /** A copy failed: retried later when {@link CopyFailures} says so, else the task stops. */
  private void failed(RunningBackfill failedRun, Exception e) {
    releaseSnapshot(); // its transaction (perhaps aborted) must not hold locks through the backoff
    if (!CopyFailures.retriable(e)) {
      closeCopy();
      throw new BackfillFailedException(failedRun.request().key().toString(), e);
    }
    state.failed(failedRun, e.getMessage() == null ? e.toString() : e.getMessage(), clockMillis.getAsLong());
  }

  private void dropCancelled() {
    if (run != null && (run.isCancelled() || state.running() != run)) {
      if (run.isCancelled()) {
        LOG.info("Backfill of {} stopped: {}", run.request().key(), run.cancelledReason());
      }
      releaseSnapshot();
      closeCopy();
    }
  }

  private void closeCopy() {
    if (copy != null) {
      copy.close();
      copy = null;
    }
    if (opening != null) {
      opening.thenAccept(TableCopy::close); // no longer wanted: closed once it is open
      opening = null;
    }
    run = null;
    copyFinished = false;
    if (!state.hasRequired()) {
      releaseSnapshot(); // nothing left to copy: end the shared snapshot's transaction now
    }
  }

  /** Ends the copy source's shared snapshot, after any open under way (on the opener's thread, in order). */
  private void releaseSnapshot() {
    sharing.forget();
    if (opener != null) {
      opener.execute(source::release);
    } else {
      source.release();
    }
  }

  @Override
  public void close() {
    closeCopy();
    sharing.forget();
    if (opener != null) {
      opener.execute(source::release);
      opener.shutdown();
    } else {
      source.release();
    }
  }
}
