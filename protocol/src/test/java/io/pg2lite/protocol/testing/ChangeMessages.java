package io.pg2lite.protocol.testing;

import io.pg2lite.protocol.message.Begin;
import io.pg2lite.protocol.message.Change;
import io.pg2lite.protocol.message.ChangeLogEntry;
import io.pg2lite.protocol.message.Commit;
import io.pg2lite.protocol.message.DataChange;
import io.pg2lite.protocol.message.Rollback;
import io.pg2lite.protocol.schema.Relation;
import io.pg2lite.protocol.value.Row;
import io.pg2lite.protocol.watermark.Lsn;
import io.pg2lite.protocol.watermark.Watermark;
import java.util.ArrayList;
import java.util.List;

/**
 * Builds change-log streams the way the source writes them, so tests read like the protocol:
 * {@code ChangeMessages.after("0/100").begin(7).insert(rel, row).commit("0/200").entries()}.
 * Watermarks and positions follow docs/protocol.md: begin and changes at the pre-commit watermark
 * (previous commit + 1) with pos 0, 1, ...; commit at its LSN's watermark with pos = changes + 1;
 * backfill transactions at {@code M.k}.
 */
public final class ChangeMessages {
  private final List<ChangeLogEntry> entries = new ArrayList<>();
  private Watermark lastCommit;
  private Watermark txWatermark;
  private long pos;
  private long changes;

  private ChangeMessages(Watermark lastCommit) {
    this.lastCommit = lastCommit;
  }

  /** A stream whose previous commit was at {@code lsn}. */
  public static ChangeMessages after(String lsn) {
    return new ChangeMessages(Watermark.fromLsn(lsn));
  }

  public static ChangeMessages after(Watermark lastCommit) {
    return new ChangeMessages(lastCommit);
  }

  public ChangeMessages begin(long xid) {
    return open(lastCommit.majorOnly().nextMajor(), new Begin(xid, null, false));
  }

  /** Opens a backfill transaction at the next minor after the last commit. */
  public ChangeMessages beginBackfill() {
    return open(lastCommit.nextMinor(), new Begin(null, null, true));
  }

  private ChangeMessages open(Watermark watermark, Begin begin) {
    if (txWatermark != null) {
      throw new IllegalStateException("transaction already open at " + txWatermark);
    }
    txWatermark = watermark;
    pos = 0;
    changes = 0;
    entries.add(new ChangeLogEntry(txWatermark, pos, begin));
    return this;
  }

  public ChangeMessages change(Change change) {
    if (txWatermark == null) {
      throw new IllegalStateException("no open transaction for " + change.tag());
    }
    entries.add(new ChangeLogEntry(txWatermark, ++pos, change));
    changes++;
    return this;
  }

  public ChangeMessages insert(Relation relation, Row row) {
    return change(new DataChange.Insert(relation, row));
  }

  public ChangeMessages update(Relation relation, Row key, Row row) {
    return change(new DataChange.Update(relation, key, row));
  }

  public ChangeMessages delete(Relation relation, Row key) {
    return change(new DataChange.Delete(relation, key));
  }

  /** Commits the open main-stream transaction at {@code lsn}. */
  public ChangeMessages commit(String lsn) {
    return close(Watermark.fromLsn(Lsn.parse(lsn)));
  }

  /** Commits the open backfill transaction at its own watermark. */
  public ChangeMessages commitBackfill() {
    return close(txWatermark);
  }

  private ChangeMessages close(Watermark commit) {
    if (txWatermark == null) {
      throw new IllegalStateException("no open transaction to commit");
    }
    entries.add(new ChangeLogEntry(commit, ++pos, new Commit(changes, null)));
    lastCommit = commit;
    txWatermark = null;
    return this;
  }

  public ChangeMessages rollback(String reason) {
    if (txWatermark == null) {
      throw new IllegalStateException("no open transaction to roll back");
    }
    entries.add(new ChangeLogEntry(txWatermark, ++pos, new Rollback(reason)));
    txWatermark = null;
    return this;
  }

  public List<ChangeLogEntry> entries() {
    return List.copyOf(entries);
  }
}
