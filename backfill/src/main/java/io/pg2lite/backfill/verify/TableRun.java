package io.pg2lite.backfill.verify;

import io.pg2lite.backfill.state.CopyFailures;
import io.pg2lite.backfill.state.SchemaIncompatibilityException;
import io.pg2lite.protocol.message.DataChange;
import io.pg2lite.protocol.message.Message;
import io.pg2lite.protocol.message.SchemaChange;
import io.pg2lite.protocol.message.Verify;
import io.pg2lite.protocol.schema.QualifiedName;
import io.pg2lite.protocol.schema.Relation;
import io.pg2lite.protocol.schema.RowKey;
import io.pg2lite.protocol.value.Row;
import io.pg2lite.protocol.value.Value;
import io.pg2lite.protocol.watermark.Watermark;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.function.BooleanSupplier;
import java.util.function.LongSupplier;
import java.util.function.Predicate;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One table being verified, from its start at a transaction boundary ({@code since}) to its
 * message: the read on the worker, the keys committed transactions touch meanwhile (a rolled-back
 * one's dropped), what makes it not comparable, and the rounds of taking touched rows out
 * ({@link VerifyStream} has the ordering rules). Used on the source's poll thread; its read and
 * lookup rounds run on the worker, one at a time, and hand over through {@link #work}.
 */
/** One table being verified: from its start at a boundary to its message. */
final class TableRun {
  private static final Logger LOG = LoggerFactory.getLogger(TableRun.class);

  /** What a run needs of its stream: where to read, the backfill's state, the clock, the worker. */
  record Context(VerifySource source, Predicate<QualifiedName> beingCopied, LongSupplier clockMillis,
      LongSupplier maxRowsPerSecond, BooleanSupplier stopping, VerifyWorker worker) {}

  private final Context context;
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

  /** @param table the table as the change log describes it, or null when it is not published */
  TableRun(VerifyRequest request, QualifiedName name, VerifyTable table, Watermark since, int attempt,
      Context context) {
    this.request = request;
    this.name = name;
    this.since = since;
    this.attempt = attempt;
    this.table = table;
    this.context = context;
    if (table == null) {
      reason = "the table is not published";
    } else if (table.key().isEmpty()) {
      reason = "the table has no row key";
    } else if (request.keyRange() != null && !table.hasIntegerKey()) {
      reason = "a key range needs a row key of one integer column";
    } else if (context.beingCopied().test(name)) {
      reason = "the table is being backfilled";
    } else if (since == null) {
      reason = "the change log holds no commit yet";
    } else {
      work = context.worker().submit(this::read);
    }
  }

  private void read() throws Exception {
    snapshot = context.source().open(table);
    pacedFrom = context.clockMillis().getAsLong();
    digests = snapshot.scan(request.keyRange(), this::pace);
  }

  /** Sleeps as long as the rows read so far are ahead of the cap. */
  private void pace(long rows) {
    if (context.stopping().getAsBoolean() || abandoned) {
      throw new IllegalStateException("the source is stopping");
    }
    pacedRows += rows;
    long cap = context.maxRowsPerSecond().getAsLong();
    if (cap <= 0) {
      return;
    }
    long due = pacedFrom + pacedRows * 1000 / cap;
    long wait = due - context.clockMillis().getAsLong();
    if (wait > 0) {
      try {
        Thread.sleep(wait);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new IllegalStateException("the verification of " + name + " was interrupted", e);
      }
    }
  }

  void observe(Message m) {
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
    if (reason == null && touched.size() > VerifyStream.MAX_TOUCHED_KEYS) {
      reason = "more than " + VerifyStream.MAX_TOUCHED_KEYS + " of its rows changed while it was verified";
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
        if (reason == null && cause instanceof SchemaIncompatibilityException) {
          // The snapshot holds another table than the change log has described so far (a DDL the
          // stream has not carried yet): a schema change in the window, as any other.
          reason = "the table's schema changed while it was verified (" + cause.getMessage() + ")";
        } else if (reason == null && CopyFailures.retriable(cause)
            && attempt < VerifyStream.MAX_ATTEMPTS) {
          LOG.info("Verification {} of {} will read the table again from a new snapshot (attempt {} of {}): {}",
              request.id(), name, attempt + 1, VerifyStream.MAX_ATTEMPTS, cause.toString());
          retryAt = context.clockMillis().getAsLong() + VerifyStream.RETRY_DELAY_MS;
          return null;
        } else {
          LOG.warn("Verification {} of {} could not read the table: {}", request.id(), name, cause.toString());
          reason = reason != null ? reason : "the source could not read it: " + cause.getMessage();
        }
      }
    }
    if (reason == null && context.beingCopied().test(name)) {
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
    if (pending.size() > VerifyStream.SYNC_KEYS) {
      excluded.addAll(pending);
      work = context.worker().submit(() -> snapshot.exclude(digests, pending, request.keyRange()));
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
    if (work != null) {
      context.worker().afterWork(this::closeSnapshot);
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
