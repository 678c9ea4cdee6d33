package io.pg2lite.source.transaction;

import io.pg2lite.protocol.message.Begin;
import io.pg2lite.protocol.message.Change;
import io.pg2lite.protocol.message.ChangeLogEntry;
import io.pg2lite.protocol.message.Commit;
import io.pg2lite.protocol.message.DataChange;
import io.pg2lite.protocol.message.Rollback;
import io.pg2lite.protocol.schema.Relation;
import io.pg2lite.protocol.schema.ReplicaIdentity;
import io.pg2lite.protocol.value.Row;
import io.pg2lite.protocol.watermark.Watermark;
import io.pg2lite.source.replication.ReplicationEvent;
import io.pg2lite.source.schema.CatalogCheck;
import io.pg2lite.source.schema.RecordedSchema;
import io.pg2lite.source.schema.SchemaTracker;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Turns the upstream event stream into change-log entries with watermarks.
 *
 * <p>Watermarks: a transaction's begin and changes carry the pre-commit watermark, the previous
 * commit watermark's major + 1, with pos 0, 1, 2...; its commit carries the LexiVersion of the
 * commit LSN, with pos = changes + 1. Invariant: previous commit &lt; pre-commit &lt;= commit. It
 * holds because commit LSNs strictly increase, and it needs neither the commit LSN at begin time
 * (Debezium's BEGIN lacks it) nor buffering of whole transactions.
 *
 * <p>A transaction is written only if it has changes: the begin is emitted with the first
 * change, so heartbeat transactions and transactions on unpublished tables produce only a new
 * position (a heartbeat record), which lets the slot advance.
 */
public final class TransactionAssembler {
  private static final Logger LOG = LoggerFactory.getLogger(TransactionAssembler.class);

  private final SchemaTracker schema;
  private SourcePosition position;
  private OpenTransaction open;
  private java.util.function.Consumer<io.pg2lite.backfill.verify.VerifyRequest> verifyRequests =
      r -> LOG.warn("Verification {} asked for, but this source does not verify", r.id());

  /**
   * Where committed verify requests go ({@code pg2lite.verify(...)}): handed over at their
   * transaction's commit, before the entries of that commit are merged into the log.
   */
  public TransactionAssembler onVerifyRequest(java.util.function.Consumer<io.pg2lite.backfill.verify.VerifyRequest> to) {
    this.verifyRequests = to;
    return this;
  }

  /** A transaction between its upstream begin and end. */
  private static final class OpenTransaction {
    final long txId;
    final Watermark watermark;
    final Instant commitTime;
    /** The schema before the transaction, for when it is cut and arrives again. */
    final SchemaTracker.Mark schemaBefore;
    long pos;
    boolean begun;
    /** Verify requests of the transaction, handed over at its commit. */
    final List<byte[]> verifyRequests = new ArrayList<>(0);

    OpenTransaction(long txId, Watermark watermark, Instant commitTime, SchemaTracker.Mark schemaBefore) {
      this.txId = txId;
      this.watermark = watermark;
      this.commitTime = commitTime;
      this.schemaBefore = schemaBefore;
    }
  }

  public TransactionAssembler(SourcePosition start, SchemaTracker schema) {
    this.position = start;
    this.schema = schema;
  }
  /** The schema tracker whose diffs this assembler's transactions carry. */
  public SchemaTracker schema() {
    return schema;
  }


  /** The position after the last complete transaction seen. */
  public SourcePosition position() {
    return position;
  }

  /** How the schema is tracked now (the metric reads it from another thread: a benign race). */
  public io.pg2lite.source.schema.DdlDetection detection() {
    return schema.detection();
  }

  /** True between an upstream begin and its end. */
  public boolean inTransaction() {
    return open != null;
  }

  /** How many changes of the open transaction were handed out; -1 outside a transaction. */
  public long changesOfOpenTransaction() {
    return open == null ? -1 : open.begun ? open.pos : 0;
  }

  public List<Emitted> accept(ReplicationEvent event) {
    List<Emitted> out = new ArrayList<>(2);
    if (event instanceof ReplicationEvent.TxBegin b) {
      if (open != null) {
        resentFromStart(out, b);
      }
      open = new OpenTransaction(b.txId(), position.lastCommit().majorOnly().nextMajor(), b.commitTime(),
          schema.mark());
    } else if (event instanceof ReplicationEvent.RowChange c) {
      describeIfUnknown(out, c.txId(), c.table());
      if (schema.replicates(c.table())) { // else refused for its replica name (NameAdmission)
        change(out, c.txId(), rowChange(c));
      }
    } else if (event instanceof ReplicationEvent.Truncate t) {
      describeIfUnknown(out, t.txId(), t.table());
      if (schema.replicates(t.table())) {
        change(out, t.txId(), new DataChange.Truncate(List.of(schema.relation(t.table(), List.of()))));
      }
    } else if (event instanceof ReplicationEvent.Relation r) {
      changes(out, r.txId(), schema.onRelation(r));
    } else if (event instanceof ReplicationEvent.Message m) {
      if (m.txId() != null && SchemaTracker.DDL_MESSAGE_PREFIX.equals(m.prefix())) {
        changes(out, m.txId(), schema.onDdlMessage(m.content()));
      } else if (m.txId() != null && CatalogCheck.PREFIX.equals(m.prefix())) {
        changes(out, m.txId(), schema.onCatalogCheck(m.content()));
      } else if (m.txId() != null && SchemaTracker.RESYNC_MESSAGE_PREFIX.equals(m.prefix())) {
        changes(out, m.txId(), schema.onResync(m.content()));
      } else if (m.txId() != null && io.pg2lite.backfill.verify.VerifyRequest.MESSAGE_PREFIX.equals(m.prefix())
          && open != null && open.txId == m.txId()) {
        open.verifyRequests.add(m.content());
      }
    } else if (event instanceof ReplicationEvent.TxEnd e) {
      end(out, e);
    } else if (event instanceof ReplicationEvent.Interrupted i) {
      if (open != null) {
        cut(out, "the replication stream broke inside transaction " + open.txId + " (" + i.reason() + ")");
      }
    } else if (event instanceof ReplicationEvent.Heartbeat h) {
      if (open == null) {
        position = position.after(position.lastCommit(), h.position());
        out.add(new Emitted(null, position, true));
      }
    } else {
      throw new IllegalStateException("unhandled replication event " + event);
    }
    return out;
  }

  /**
   * A position-only record at the current position, to close a Kafka transaction when there is
   * nothing else to close it at. Only valid between upstream transactions.
   */
  public Emitted heartbeat() {
    if (open != null) {
      throw new IllegalStateException("no heartbeat inside upstream transaction " + open.txId);
    }
    return new Emitted(null, position, true);
  }

  /**
   * Closes a transaction the source began writing before a restart and never finished: the
   * change log must not hold a begin inside an open transaction.
   */
  public static Emitted rollback(ChangeLogEntry lastWritten, SourcePosition position) {
    return new Emitted(new ChangeLogEntry(lastWritten.watermark(), lastWritten.pos() + 1,
        new Rollback("the source restarted inside this transaction; it will be sent again whole")), position, true);
  }

  /**
   * A begin while a transaction is open: the replication connection restarted inside it (a
   * Postgres restart, a dropped connection) and the stream sends transactions again from the last
   * confirmed position, this one from its start. Whatever of it was written is closed by a
   * rollback, and it is written again whole, under the same pre-commit watermark: the position
   * has not moved, because only a commit moves it.
   */
  private void resentFromStart(List<Emitted> out, ReplicationEvent.TxBegin b) {
    LOG.info("Upstream began transaction {} while transaction {} was open (the replication stream restarted): "
        + "closing the open one{}", b.txId(), open.txId, open.begun ? " with a rollback" : "");
    cut(out, "the replication stream restarted inside transaction " + open.txId);
  }

  /**
   * Ends the open transaction unfinished: a rollback if any of it was written (consumers discard
   * it; it arrives again whole under the same pre-commit watermark, since only a commit moves the
   * position), and the schema as it was before it.
   */
  private void cut(List<Emitted> out, String why) {
    if (open.begun) {
      out.add(new Emitted(new ChangeLogEntry(open.watermark, open.pos + 1, new Rollback(why + "; it is sent again "
          + "whole")), position, true));
    }
    schema.restore(open.schemaBefore);
    open = null;
  }

  private void changes(List<Emitted> out, long txId, List<? extends Change> changes) {
    for (Change c : changes) {
      change(out, txId, c);
    }
  }

  /** Replication-stream mode: a change of a table the tracked schema lost describes it again first. */
  private void describeIfUnknown(List<Emitted> out, long txId, io.pg2lite.protocol.schema.QualifiedName table) {
    if (!schema.holds(table)) {
      changes(out, txId, schema.onUnknownTable(table));
    }
  }

  private void change(List<Emitted> out, long txId, Change change) {
    if (open == null || open.txId != txId) {
      throw new IllegalStateException("upstream sent a " + change.tag() + " of transaction " + txId
          + (open == null ? " outside any transaction" : " inside transaction " + open.txId));
    }
    if (!open.begun) {
      open.begun = true;
      out.add(new Emitted(new ChangeLogEntry(open.watermark, 0, new Begin(open.txId, open.commitTime, false)),
          position, false));
    }
    out.add(new Emitted(new ChangeLogEntry(open.watermark, ++open.pos, change), position, false));
  }

  private void end(List<Emitted> out, ReplicationEvent.TxEnd e) {
    if (open == null || open.txId != e.txId()) {
      throw new IllegalStateException("upstream ended transaction " + e.txId() + " that was not open");
    }
    OpenTransaction tx = open;
    open = null;
    Watermark commit = Watermark.fromLsn(e.commitLsn());
    if (!commit.isAfter(position.lastCommit())) {
      // Already written before a restart. Its begin and changes went out under the pre-commit
      // watermark after the last commit, which consumers do not skip: close them with a rollback
      // so nothing of the repeat is applied, and leave the position where it is.
      LOG.info("Transaction {} committed at {} ({}) was written before: not after the last commit written, {}; "
          + "{}", tx.txId, e.commitLsn(), commit, position.lastCommit(), tx.begun ? "rolling back its repeat" : "skipped");
      if (tx.begun) {
        out.add(new Emitted(new ChangeLogEntry(tx.watermark, tx.pos + 1, new Rollback("transaction " + tx.txId
            + " was sent again by the replication stream after its commit at " + commit + " was written")),
            position, true));
      }
      return;
    }
    if (schema.version() != tx.schemaBefore.version()) {
      // Recorded before the commit, in the same Kafka transaction: a restart after this commit
      // resumes with this schema (ADR 0028).
      out.add(Emitted.schema(new RecordedSchema(commit, position.replicaVersion(), schema.current(),
          schema.describedBy(), schema.membership(), schema.detection()), position));
    }
    position = position.after(commit, e.position());
    for (byte[] request : tx.verifyRequests) {
      try {
        verifyRequests.accept(io.pg2lite.backfill.verify.VerifyRequest.parse(request));
      } catch (IllegalArgumentException bad) {
        LOG.warn("Transaction {}: {}; ignored", tx.txId, bad.getMessage()); // written by hand, not by pg2lite.verify()
      }
    }
    if (tx.begun) {
      out.add(new Emitted(new ChangeLogEntry(commit, tx.pos + 1, new Commit(tx.pos, tx.commitTime)), position, true));
    } else {
      out.add(new Emitted(null, position, true));
    }
  }

  private DataChange rowChange(ReplicationEvent.RowChange c) {
    Relation relation = schema.relation(c.table(), c.keyColumns());
    boolean full = relation.rowKey().type() == ReplicaIdentity.FULL;
    Row before = schema.admittedRow(c.table(), c.before());
    Row after = schema.admittedRow(c.table(), c.after());
    switch (c.op()) {
      case INSERT:
        return new DataChange.Insert(relation, after);
      case UPDATE:
        Row key = null;
        if (before != null) {
          key = full ? before : project(before, relation);
        }
        return new DataChange.Update(relation, key, after);
      case DELETE:
        if (before == null) {
          throw new IllegalStateException("delete on " + c.table() + " without the old row's key");
        }
        return new DataChange.Delete(relation, full ? before : project(before, relation));
      default:
        throw new IllegalStateException("unknown row operation " + c.op());
    }
  }

  /** The row-key columns of an old row image (the rest of it is nulls or absent). */
  private static Row project(Row row, Relation relation) {
    if (relation.rowKey().columns().isEmpty()) {
      return row;
    }
    Row.Builder b = Row.builder();
    for (String col : relation.rowKey().columns()) {
      if (row.contains(col)) {
        b.put(col, row.get(col));
      }
    }
    return b.build();
  }
}
