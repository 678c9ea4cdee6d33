package io.pg2lite.backfill.verify;

import io.pg2lite.protocol.message.Begin;
import io.pg2lite.protocol.message.ChangeLogEntry;
import io.pg2lite.protocol.message.Commit;
import io.pg2lite.protocol.message.Rollback;
import io.pg2lite.protocol.message.Verify;
import io.pg2lite.protocol.schema.QualifiedName;
import io.pg2lite.protocol.watermark.Watermark;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
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
  /** Where tables are read and rounds of lookups run. */
  private VerifyWorker worker = VerifyWorker.inline();
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
    this.worker = VerifyWorker.background();
    return this;
  }

  /** Reads on {@code executor}, which must run its tasks one at a time, in order (tests step it). */
  VerifyStream readOn(java.util.concurrent.Executor executor) {
    this.worker = VerifyWorker.on(executor);
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
      run = newRun(failed.request, failed.name, failed.attempt + 1); // since: this boundary
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
      run = newRun(head, head.tables().get(0), 1);
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

  /** A run of {@code name} starting now, at a boundary: {@code since} is the last commit. */
  private TableRun newRun(VerifyRequest request, QualifiedName name, int attempt) {
    return new TableRun(request, name, tables.apply(name), lastCommit, attempt, new TableRun.Context(source,
        beingCopied, clockMillis, () -> maxRowsPerSecond, () -> closed, worker));
  }

  @Override
  public void close() {
    closed = true; // a scan under way stops at its next batch
    if (run != null) {
      run.close();
      run = null;
    }
    worker.shutdown(); // after the snapshot's end, queued by run.close()
  }
}
