package io.pg2lite.protocol.message;

import io.pg2lite.protocol.watermark.Watermark;

/**
 * Checks, record by record, the ordering rules every change log obeys (docs/protocol.md, "What a
 * consumer can check"). Feed it the records of one log in offset order; it throws
 * {@link Violation} naming the record and the rule at the first record that breaks one.
 *
 * <p>What it cannot check is the exact value of a pre-commit watermark: it is derived from the
 * source's upstream position, which moves on transactions that write nothing to the log, so only
 * its bounds are visible (above the previous commit, at or below its own commit).
 *
 * <p>Not thread-safe; one instance per log.
 */
public final class ChangeLogRules {
  /** A record that breaks a rule of the log. */
  public static final class Violation extends IllegalStateException {
    private static final long serialVersionUID = 1L;

    Violation(long index, ChangeLogEntry entry, String rule) {
      super("record #" + index + " (" + entry.kind().wireName() + " at " + entry.watermark() + ", pos " + entry.pos()
          + "): " + rule);
    }
  }

  private long index = -1;
  /** The last commit watermark of a transaction that was not a repeat; null before the first. */
  private Watermark lastCommit;
  private ChangeLogEntry openBegin;
  private long dataInOpen;
  private long expectedPos;

  /** The watermark of the last commit that moved the log forward, or null before any. */
  public Watermark lastCommit() {
    return lastCommit;
  }

  /** True between a begin and its commit or rollback. */
  public boolean inTransaction() {
    return openBegin != null;
  }

  /** Checks the next record of the log. */
  public void accept(ChangeLogEntry e) {
    index++;
    if (e.message() instanceof Begin b) {
      begin(e, b);
      return;
    }
    if (openBegin == null) {
      throw new Violation(index, e, "outside a transaction");
    }
    if (e.pos() != expectedPos) {
      throw new Violation(index, e, "pos should be " + expectedPos);
    }
    expectedPos++;
    if (e.message() instanceof Commit c) {
      commit(e, c);
    } else if (e.message() instanceof Rollback) {
      if (!e.watermark().equals(openBegin.watermark())) {
        throw new Violation(index, e, "a rollback carries its begin's watermark " + openBegin.watermark());
      }
      openBegin = null;
    } else {
      if (!e.watermark().equals(openBegin.watermark())) {
        throw new Violation(index, e, "a data record carries its begin's watermark " + openBegin.watermark());
      }
      dataInOpen++;
    }
  }

  private void begin(ChangeLogEntry e, Begin b) {
    if (openBegin != null) {
      throw new Violation(index, e, "begin inside the open transaction that began at " + openBegin.watermark());
    }
    if (e.pos() != 0) {
      throw new Violation(index, e, "a begin has pos 0");
    }
    boolean minor = e.watermark().minor() != null;
    if (b.backfill() && !minor) {
      throw new Violation(index, e, "a backfill transaction's watermark is M.k");
    }
    if (!b.backfill() && b.xid() != null && minor) {
      throw new Violation(index, e, "a live transaction's begin watermark has no minor");
    }
    boolean firstStart = minor && !b.backfill() && b.xid() == null;
    if (b.lineage() != null && !(firstStart && java.math.BigInteger.ONE.equals(e.watermark().minor()))) {
      throw new Violation(index, e, "a new lineage begins with a first-start transaction (V.01, no xid)");
    }
    if (lastCommit == null && !firstStart) {
      throw new Violation(index, e, "the log starts with the first-start transaction (V.01, no xid)");
    }
    if (b.backfill() && !e.watermark().isAfter(lastCommit)) {
      throw new Violation(index, e, "a backfill transaction is never a repeat: it begins above the last commit "
          + lastCommit);
    }
    openBegin = e;
    dataInOpen = 0;
    expectedPos = 1;
  }

  private void commit(ChangeLogEntry e, Commit c) {
    if (c.changes() != dataInOpen) {
      throw new Violation(index, e, "commit counts " + c.changes() + " changes, the transaction has " + dataInOpen);
    }
    Watermark begin = openBegin.watermark();
    if (begin.minor() != null) {
      if (!e.watermark().equals(begin)) {
        throw new Violation(index, e, "a backfill or first-start transaction commits at its begin's watermark " + begin);
      }
    } else if (e.watermark().minor() != null || e.watermark().compareTo(begin) < 0) {
      throw new Violation(index, e, "a live transaction commits at a major watermark at or above its begin " + begin);
    }
    boolean repeat = lastCommit != null && begin.isAtOrBefore(lastCommit);
    if (!repeat) {
      lastCommit = e.watermark();
    } else if (e.watermark().isAfter(lastCommit)) {
      throw new Violation(index, e, "a repeated transaction (begin " + begin + " at or below the last commit "
          + lastCommit + ") must not commit above it");
    }
    openBegin = null;
  }
}
