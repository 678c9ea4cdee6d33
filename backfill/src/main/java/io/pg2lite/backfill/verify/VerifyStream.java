package io.pg2lite.backfill.verify;

import io.pg2lite.protocol.message.Begin;
import io.pg2lite.protocol.message.ChangeLogEntry;
import io.pg2lite.protocol.message.Commit;
import io.pg2lite.protocol.message.DataChange;
import io.pg2lite.protocol.message.Rollback;
import io.pg2lite.protocol.message.SchemaChange;
import io.pg2lite.protocol.message.Verify;
import io.pg2lite.protocol.schema.QualifiedName;
import io.pg2lite.protocol.schema.Relation;
import io.pg2lite.protocol.schema.RowKey;
import io.pg2lite.protocol.value.Row;
import io.pg2lite.protocol.value.Value;
import io.pg2lite.protocol.watermark.Watermark;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.function.Function;
import java.util.function.LongSupplier;
import java.util.function.Predicate;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The verifications of the source: requests in order, their tables one at a time, each written
 * as a {@code verify} message in a transaction of its own between main-stream transactions.
 *
 * <p>A table's verification starts at a transaction boundary, noting {@code since}, the last
 * commit written. From then on every entry written passes through {@link #observe}: the row keys
 * of the table that a committed transaction touched are collected (a rolled-back one's are
 * dropped: replicas never apply it), and a truncate, a schema change or a copy of the table makes
 * it not comparable. Meanwhile a worker thread takes a snapshot (after {@code since}, so it holds
 * every commit up to it), reads the table into bucket digests and takes out the rows of the keys
 * touched so far, in rounds; when few keys remain, the source's poll thread takes those out at a
 * transaction boundary and writes the message there, at once: the keys touched up to the
 * message's position are exactly the ones taken out. The reading never holds the poll thread;
 * only the last few lookups do (at most {@link #SYNC_KEYS} keys, one indexed query).
 *
 * <p>The caller feeds every entry written, in log order, through {@link #observe}, and asks for
 * the next transaction only between transactions.
 */
public final class VerifyStream implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(VerifyStream.class);
  /** Touched keys the poll thread takes out itself; above this the worker does another round. */
  static final int SYNC_KEYS = 500;
  /** Touched keys past which a table is too busy to compare (the keys are held in memory). */
  static final int MAX_TOUCHED_KEYS = 1_000_000;
  /** Reads of a table a transient fault may cut before it is answered "could not read". */
  static final int MAX_ATTEMPTS = 3;
  static final long RETRY_DELAY_MS = 1_000;

  private final VerifySource source;
  private final Function<QualifiedName, VerifyTable> tables;
  private final Supplier<List<QualifiedName>> published;
  private final Predicate<QualifiedName> beingCopied;
  private final LongSupplier clockMillis;
  private final Deque<VerifyRequest> requests = new ArrayDeque<>();
  /** Where tables are read and rounds of lookups run; null: inline. */
  private java.util.concurrent.Executor worker;
  private ExecutorService ownedWorker;
  private long intervalMillis;
  private long nextIntervalAt = Long.MAX_VALUE;
  private long maxRowsPerSecond;
  private Watermark lastCommit;
  private boolean inTransaction;
  private TableRun run;
  private String cachedJson;
  private boolean jsonStale = true;
  private volatile boolean closed;

  /**
   * @param tables a published table as the change log last described it, or null when the table
   *     is not published
   * @param published every published table
   * @param beingCopied whether the backfill copies (a part of) the table now
   * @param lastCommit the last commit in the change log
   * @param stored the requests stored with the position the source resumes from, or null
   */
  public VerifyStream(VerifySource source, Function<QualifiedName, VerifyTable> tables,
      Supplier<List<QualifiedName>> published, Predicate<QualifiedName> beingCopied, Watermark lastCommit,
      String stored, LongSupplier clockMillis) {
    this.source = source;
    this.tables = tables;
    this.published = published;
    this.beingCopied = beingCopied;
    this.lastCommit = lastCommit;
    this.clockMillis = clockMillis;
    if (stored != null) {
      requests.addAll(VerifyRequest.decodeAll(stored));
    }
  }

  /** Verifies every published table every {@code millis} (0: only on request). */
  public VerifyStream every(long millis) {
    this.intervalMillis = millis;
    this.nextIntervalAt = millis > 0 ? clockMillis.getAsLong() + millis : Long.MAX_VALUE;
    return this;
  }

  /** Caps the rows read per second (0: no cap), as the backfill's copies are capped. */
  public VerifyStream maxRowsPerSecond(long rows) {
    this.maxRowsPerSecond = rows;
    return this;
  }

  /** Reads on a thread of its own (without it, inline on the caller's thread: tests). */
  public VerifyStream readInBackground() {
    ownedWorker = Executors.newSingleThreadExecutor(r -> {
      Thread t = new Thread(r, "pg2lite-verify");
      t.setDaemon(true);
      t.setPriority(Thread.MIN_PRIORITY);
      return t;
    });
    return readOn(ownedWorker);
  }

  /** Reads on {@code executor}, which must run its tasks one at a time, in order (tests step it). */
  VerifyStream readOn(java.util.concurrent.Executor executor) {
    this.worker = executor;
    return this;
  }

  /** A request the database committed (it starts at the next transaction boundary). */
  public void request(VerifyRequest request) {
    LOG.info("Verification {} requested: {}{}", request.id(),
        request.tables() == null ? "every published table" : request.tables(),
        request.keyRange() == null ? "" : ", keys " + request.keyRange().from() + " to " + request.keyRange().to());
    requests.add(request);
    jsonStale = true;
  }

  /** The requests not yet answered, as JSON to store with the position of the entries observed; null if none. */
  public String requestsJson() {
    if (jsonStale) {
      cachedJson = requests.isEmpty() ? null : VerifyRequest.encodeAll(new ArrayList<>(requests));
      jsonStale = false;
    }
    return cachedJson;
  }

  /** One entry written to the change log, in log order. */
  public void observe(ChangeLogEntry entry) {
    var m = entry.message();
    if (m instanceof Begin) {
      inTransaction = true;
    } else if (m instanceof Commit) {
      inTransaction = false;
      if (lastCommit == null || entry.watermark().isAfter(lastCommit)) {
        lastCommit = entry.watermark();
      }
      if (run != null) {
        run.committed();
      }
    } else if (m instanceof Rollback) {
      inTransaction = false;
      if (run != null) {
        run.rolledBack();
      }
    } else if (run != null) {
      run.observe(m);
    }
  }

  /**
   * The entries of a verify transaction to write now, under {@code watermark} (a backfill-style
   * watermark, above the last commit), or an empty list. Only between transactions.
   */
  public List<ChangeLogEntry> nextTransaction(Watermark watermark) {
    if (inTransaction) {
      return List.of();
    }
    long now = clockMillis.getAsLong();
    if (now >= nextIntervalAt) {
      nextIntervalAt = now + intervalMillis;
      if (requests.isEmpty()) {
        request(new VerifyRequest("every-" + intervalMillis + "ms-" + now, null, null));
      }
    }
    if (run == null && !start()) {
      return List.of();
    }
    if (run.retryAt > 0) {
      if (now < run.retryAt) {
        return List.of();
      }
      TableRun failed = run;
      failed.close();
      run = new TableRun(failed.request, failed.name, lastCommit, failed.attempt + 1); // since: this boundary
    }
    Verify done = run.advance();
    if (done == null) {
      return List.of();
    }
    finish(done);
    return List.of(new ChangeLogEntry(watermark, 0, new Begin(null, null, true)),
        new ChangeLogEntry(watermark, 1, done), new ChangeLogEntry(watermark, 2, new Commit(1, null)));
  }

  /** Starts the next table of the first request; false when nothing is to verify. */
  private boolean start() {
    while (!requests.isEmpty()) {
      VerifyRequest head = requests.peekFirst();
      if (head.tables() == null) {
        List<QualifiedName> all = new ArrayList<>(published.get());
        all.sort(java.util.Comparator.comparing(QualifiedName::schema).thenComparing(QualifiedName::name));
        head = new VerifyRequest(head.id(), all, head.keyRange());
        requests.removeFirst();
        requests.addFirst(head);
      }
      if (head.tables().isEmpty()) {
        requests.removeFirst();
        jsonStale = true;
        LOG.info("Verification {} written for every table it names", head.id());
        continue;
      }
      run = new TableRun(head, head.tables().get(0), lastCommit, 1);
      return true;
    }
    return false;
  }

  private void finish(Verify done) {
    if (done.result() == Verify.Result.COMPARED) {
      LOG.info("Verification {} of {}: {} rows in {} buckets from the snapshot at {} ({} rows changed since {} left out)",
          done.id(), done.relation().table(), done.digests().stream().mapToLong(Verify.Digest::rows).sum(),
          done.digests().size(), done.snapshot(), done.excluded(), done.since());
    } else {
      LOG.info("Verification {} of {}: not comparable: {}", done.id(), done.relation().table(), done.reason());
    }
    VerifyRequest rest = requests.removeFirst().without(run.name);
    if (rest.tables().isEmpty()) {
      LOG.info("Verification {} written for every table it names", rest.id());
    } else {
      requests.addFirst(rest);
    }
    jsonStale = true;
    run.close();
    run = null;
  }

  /** One table being verified: from its start at a boundary to its message. */
  private final class TableRun {
    final VerifyRequest request;
    final QualifiedName name;
    final VerifyTable table;
    final Watermark since;
    /** Keys touched by committed transactions since {@code since}. */
    final Set<List<Value>> touched = new HashSet<>();
    /** Keys touched by the transaction being written (a rollback drops them). */
    final Set<List<Value>> touchedInTx = new HashSet<>();
    final Set<List<Value>> excluded = new HashSet<>();
    String reason;
    String reasonInTx;
    TableSnapshot snapshot;
    TableDigests digests;
    CompletableFuture<Void> work;
    /** Set when the run ends before its read: the read stops at its next batch. */
    volatile boolean abandoned;
    long pacedFrom;
    long pacedRows;

    /** Which attempt at the table this is (a transient fault reads it again, from a new snapshot). */
    final int attempt;
    /** When a failed attempt is to be followed by the next; 0 while none is due. */
    long retryAt;

    TableRun(VerifyRequest request, QualifiedName name, Watermark since, int attempt) {
      this.request = request;
      this.name = name;
      this.since = since;
      this.attempt = attempt;
      this.table = tables.apply(name);
      if (table == null) {
        reason = "the table is not published";
      } else if (table.key().isEmpty()) {
        reason = "the table has no row key";
      } else if (request.keyRange() != null && !table.hasIntegerKey()) {
        reason = "a key range needs a row key of one integer column";
      } else if (beingCopied.test(name)) {
        reason = "the table is being backfilled";
      } else if (since == null) {
        reason = "the change log holds no commit yet";
      } else {
        work = submit(this::read);
      }
    }

    private void read() throws Exception {
      snapshot = source.open(table);
      pacedFrom = clockMillis.getAsLong();
      digests = snapshot.scan(request.keyRange(), this::pace);
    }

    /** Sleeps as long as the rows read so far are ahead of the cap. */
    private void pace(long rows) {
      if (closed || abandoned) {
        throw new IllegalStateException("the source is stopping");
      }
      pacedRows += rows;
      if (maxRowsPerSecond <= 0) {
        return;
      }
      long due = pacedFrom + pacedRows * 1000 / maxRowsPerSecond;
      long wait = due - clockMillis.getAsLong();
      if (wait > 0) {
        try {
          Thread.sleep(wait);
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
          throw new IllegalStateException("the verification of " + name + " was interrupted", e);
        }
      }
    }

    void observe(io.pg2lite.protocol.message.Message m) {
      if (m instanceof DataChange.Insert i && mine(i.relation())) {
        touch(i.relation(), i.row());
      } else if (m instanceof DataChange.Update u && mine(u.relation())) {
        touch(u.relation(), u.row());
        if (u.key() != null) {
          touch(u.relation(), u.key());
        }
      } else if (m instanceof DataChange.Delete d && mine(d.relation())) {
        touch(d.relation(), d.key());
      } else if (m instanceof DataChange.Truncate t && t.relations().stream().anyMatch(this::mine)) {
        reasonInTx = "the table was truncated while it was verified";
      } else if (m instanceof DataChange.Backfill b && mine(b.relation())) {
        reasonInTx = "the table was being backfilled while it was verified";
      } else if (m instanceof SchemaChange s && !(s instanceof SchemaChange.CreateIndex)
          && !(s instanceof SchemaChange.DropIndex) && concerns(s)) {
        reasonInTx = "the table's schema changed while it was verified (" + s.tag() + ")";
      }
    }

    private boolean mine(Relation r) {
      return r.table().equals(name);
    }

    private boolean concerns(SchemaChange s) {
      if (s instanceof SchemaChange.CreateTable c) {
        return new QualifiedName(c.spec().schema(), c.spec().name()).equals(name);
      } else if (s instanceof SchemaChange.RenameTable r) {
        return r.old().equals(name) || r.renamed().equals(name);
      } else if (s instanceof SchemaChange.UpdateTableMetadata u) {
        return u.table().equals(name);
      } else if (s instanceof SchemaChange.AddColumn a) {
        return a.table().equals(name);
      } else if (s instanceof SchemaChange.UpdateColumn u) {
        return u.table().equals(name);
      } else if (s instanceof SchemaChange.DropColumn d) {
        return d.table().equals(name);
      } else if (s instanceof SchemaChange.DropTable d) {
        return d.id().equals(name);
      } else if (s instanceof SchemaChange.BackfillCompleted b) {
        return b.relation().table().equals(name);
      }
      return true; // a kind this run does not know: not comparable rather than wrong
    }

    /** The replica's row key of {@code row} (the whole old row under REPLICA IDENTITY FULL holds it too). */
    private void touch(Relation relation, Row row) {
      if (reason != null || table == null) {
        return;
      }
      List<Value> key = new ArrayList<>(table.key().size());
      for (String k : table.key()) {
        Value v = row.values().get(k);
        if (v == null) {
          reasonInTx = "a change of the table did not carry its row key " + k;
          return;
        }
        key.add(v);
      }
      touchedInTx.add(key);
    }

    void committed() {
      if (reasonInTx != null && reason == null) {
        reason = reasonInTx;
      }
      touched.addAll(touchedInTx);
      touchedInTx.clear();
      reasonInTx = null;
      if (reason == null && touched.size() > MAX_TOUCHED_KEYS) {
        reason = "more than " + MAX_TOUCHED_KEYS + " of its rows changed while it was verified";
      }
    }

    void rolledBack() {
      touchedInTx.clear();
      reasonInTx = null;
    }

    /** The message once the table is done, else null (its reading or a round of lookups goes on). */
    Verify advance() {
      if (work != null) {
        if (!work.isDone()) {
          // Not comparable already: answer now, the read stops at its next batch (close()).
          return reason != null ? notComparable() : null;
        }
        CompletableFuture<Void> finished = work;
        work = null;
        try {
          finished.join();
        } catch (java.util.concurrent.CompletionException | java.util.concurrent.CancellationException e) {
          Throwable cause = e.getCause() == null ? e : e.getCause();
          if (reason == null && cause instanceof io.pg2lite.backfill.state.SchemaIncompatibilityException) {
            // The snapshot holds another table than the change log has described so far (a DDL the
            // stream has not carried yet): a schema change in the window, as any other.
            reason = "the table's schema changed while it was verified (" + cause.getMessage() + ")";
          } else if (reason == null && io.pg2lite.backfill.state.CopyFailures.retriable(cause)
              && attempt < MAX_ATTEMPTS) {
            LOG.info("Verification {} of {} will read the table again from a new snapshot (attempt {} of {}): {}",
                request.id(), name, attempt + 1, MAX_ATTEMPTS, cause.toString());
            retryAt = clockMillis.getAsLong() + RETRY_DELAY_MS;
            return null;
          } else {
            LOG.warn("Verification {} of {} could not read the table: {}", request.id(), name, cause.toString());
            reason = reason != null ? reason : "the source could not read it: " + cause.getMessage();
          }
        }
      }
      if (reason == null && beingCopied.test(name)) {
        reason = "the table is being backfilled";
      }
      if (reason != null) {
        return notComparable();
      }
      List<List<Value>> pending = new ArrayList<>();
      for (List<Value> k : touched) {
        if (!excluded.contains(k)) {
          pending.add(k);
        }
      }
      if (pending.size() > SYNC_KEYS) {
        excluded.addAll(pending);
        work = submit(() -> snapshot.exclude(digests, pending, request.keyRange()));
        return null;
      }
      try {
        snapshot.exclude(digests, pending, request.keyRange()); // the last few, on the poll thread
      } catch (Exception e) {
        reason = "the source could not look up the rows changed meanwhile: " + e.getMessage();
        return notComparable();
      }
      return digests.message(request.id(), snapshot.watermark(), since, request.keyRange());
    }

    private Verify notComparable() {
      Relation relation = table != null ? table.relation() : new Relation(name.schema(), name.name(), new RowKey(List.of(), null));
      List<String> columns = table != null ? List.copyOf(table.columns().keySet()) : List.of();
      Watermark snap = snapshot != null ? snapshot.watermark() : since != null ? since : Watermark.parse("00");
      return new Verify(request.id(), relation, columns, snap, since != null ? since : snap,
          Verify.Result.NOT_COMPARABLE, reason, request.keyRange(), null, null, 0);
    }

    /** Ends the snapshot after any work on it: on the worker, which runs its tasks in turn. */
    void close() {
      abandoned = true;
      if (work != null && worker != null) {
        worker.execute(this::closeSnapshot);
      } else {
        closeSnapshot();
      }
    }

    private void closeSnapshot() {
      if (snapshot != null) {
        snapshot.close();
        snapshot = null;
      }
    }
  }

  private interface Work {
    void run() throws Exception;
  }

  private CompletableFuture<Void> submit(Work w) {
    Runnable r = () -> {
      try {
        w.run();
      } catch (RuntimeException e) {
        throw e;
      } catch (Exception e) {
        throw new java.util.concurrent.CompletionException(e);
      }
    };
    if (worker == null) {
      try {
        r.run();
        return CompletableFuture.completedFuture(null);
      } catch (RuntimeException e) {
        return CompletableFuture.failedFuture(e instanceof java.util.concurrent.CompletionException c && c.getCause() != null
            ? c.getCause() : e);
      }
    }
    return CompletableFuture.runAsync(r, worker);
  }

  @Override
  public void close() {
    closed = true; // a scan under way stops at its next batch
    if (run != null) {
      run.close();
      run = null;
    }
    if (ownedWorker != null) {
      ownedWorker.shutdown(); // after the snapshot's end, queued by run.close()
    }
  }
}
