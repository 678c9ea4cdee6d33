package io.pg2lite.protocol.progress;

import io.pg2lite.protocol.message.DataChange;
import io.pg2lite.protocol.message.Message;
import io.pg2lite.protocol.message.SchemaChange;
import io.pg2lite.protocol.schema.BackfillStatus;
import io.pg2lite.protocol.schema.QualifiedName;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.LongSupplier;

/**
 * The copies under way, as the change log shows them: every {@code backfill} message carries its
 * copy's status (rows so far, rows in the snapshot), and {@code backfill-completed} ends it. The
 * source feeds what it writes, a sink what it applies, so each reports progress from where it
 * stands. The rate is rows since the first message seen of that copy over the time since then;
 * the ETA is what is left at that rate. Thread-safe: fed by one task thread, read by JMX threads.
 */
public final class BackfillProgress {
  /** One copy: rows done of total, at rows/s, done in about etaSeconds (-1 while unknown). */
  public record Table(QualifiedName table, long rows, long totalRows, double rowsPerSecond, long etaSeconds) {
    @Override
    public String toString() {
      String eta = etaSeconds < 0 ? "ETA unknown" : "ETA " + etaSeconds + " s";
      return String.format("%s %,d/%,d rows (%d%%), %,.0f rows/s, %s", table, rows, totalRows,
          totalRows == 0 ? 100 : rows * 100 / totalRows, rowsPerSecond, eta);
    }
  }

  private record Seen(long firstRows, long firstNanos, long rows, long totalRows, long lastNanos) {}

  private final LongSupplier nanoClock;
  private final Map<QualifiedName, Seen> copies = new LinkedHashMap<>();

  public BackfillProgress() {
    this(System::nanoTime);
  }

  public BackfillProgress(LongSupplier nanoClock) {
    this.nanoClock = nanoClock;
  }

  /**
   * One message written (source) or applied (sink), in log order. Called for every record on the
   * task's hot path: messages that are no copy's business return before taking the lock.
   */
  public void observe(Message m) {
    if (m instanceof DataChange.Backfill || m instanceof SchemaChange.BackfillCompleted
        || m instanceof SchemaChange.DropTable) {
      record(m);
    }
  }

  private synchronized void record(Message m) {
    if (m instanceof DataChange.Backfill b && b.status() != null) {
      BackfillStatus s = b.status();
      long now = nanoClock.getAsLong();
      Seen was = copies.get(b.relation().table());
      copies.put(b.relation().table(), was == null || s.rows() < was.rows()
          ? new Seen(Math.max(0, s.rows() - b.rowValues().size()), now, s.rows(), s.totalRows(), now) // (re)starts
          : new Seen(was.firstRows(), was.firstNanos(), s.rows(), s.totalRows(), now));
    } else if (m instanceof SchemaChange.BackfillCompleted c) {
      copies.remove(c.relation().table());
    } else if (m instanceof SchemaChange.DropTable d) {
      copies.remove(d.id());
    }
  }

  public synchronized List<Table> tables() {
    List<Table> out = new ArrayList<>();
    long now = nanoClock.getAsLong();
    for (Map.Entry<QualifiedName, Seen> e : copies.entrySet()) {
      Seen s = e.getValue();
      double seconds = (now - s.firstNanos()) / 1e9;
      double rate = seconds > 0 ? (s.rows() - s.firstRows()) / seconds : 0;
      long left = Math.max(0, s.totalRows() - s.rows());
      out.add(new Table(e.getKey(), s.rows(), s.totalRows(), rate, rate > 0 ? (long) Math.ceil(left / rate) : -1));
    }
    return out;
  }

  /** Rows still to copy over all copies under way (by their snapshots' counts). */
  public synchronized long rowsRemaining() {
    return copies.values().stream().mapToLong(s -> Math.max(0, s.totalRows() - s.rows())).sum();
  }

  /** One line per copy, "; "-separated; empty when none runs. */
  public String describe() {
    return String.join("; ", tables().stream().map(Table::toString).toList());
  }
}
