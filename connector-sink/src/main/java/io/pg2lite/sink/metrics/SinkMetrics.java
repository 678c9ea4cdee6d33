package io.pg2lite.sink.metrics;

import io.pg2lite.connect.MBeans;
import io.pg2lite.connect.ThrottledReading;
import io.pg2lite.connect.WindowedRates;
import java.time.Instant;
import java.util.function.LongSupplier;
import javax.management.JMException;
import javax.management.ObjectName;

/**
 * Counters of the sink task, published as an MBean; written by the task thread only, read by JMX
 * threads (volatile fields). Rates use fixed 10-second windows.
 */
public final class SinkMetrics implements SinkMetricsMBean, AutoCloseable {
  private final ObjectName name;
  private final WindowedRates rates = new WindowedRates();
  private final ThrottledReading logEnd;
  private volatile String watermark = "";
  private volatile long offset = -1;
  private volatile long millisBehind = -1;
  private volatile long transactions;
  private volatile long records;
  private final io.pg2lite.protocol.progress.BackfillProgress backfills = new io.pg2lite.protocol.progress.BackfillProgress();
  private volatile SnapshotFigures snapshots = SnapshotFigures.NONE;
  private volatile ThrottledReading oldestRestorable = new ThrottledReading(() -> -1);

  private SinkMetrics(ObjectName name, LongSupplier logEnd) {
    this.name = name;
    this.logEnd = new ThrottledReading(logEnd);
  }

  /** One message applied (not yet committed: a progress view, not a position). */
  public void applied(io.pg2lite.protocol.message.Message m) {
    backfills.observe(m);
  }

  @Override
  public String getBackfillProgress() {
    return backfills.describe();
  }

  @Override
  public long getBackfillRowsRemaining() {
    return backfills.rowsRemaining();
  }

  /** Where the snapshot figures come from once the replica is open; {@link SnapshotFigures#NONE} before. */
  public void snapshots(SnapshotFigures figures) {
    snapshots = figures;
    oldestRestorable = new ThrottledReading(figures::oldestRestorable);
  }

  @Override
  public long getSnapshotsTaken() {
    return snapshots.taken();
  }

  @Override
  public long getLastSnapshotOffset() {
    return snapshots.lastOffset();
  }

  @Override
  public long getLastSnapshotBytes() {
    return snapshots.lastBytes();
  }

  @Override
  public long getLastSnapshotMillis() {
    return snapshots.lastMillis();
  }

  @Override
  public long getRestoredSnapshotOffset() {
    return snapshots.restoredOffset();
  }

  @Override
  public long getOldestRestorableOffset() {
    return oldestRestorable.get();
  }

  /** Registers the MBean; {@code logEnd} reads the change log's end offset (-1 when unknown). */
  public static SinkMetrics register(String connector, LongSupplier logEnd) {
    ObjectName name;
    try {
      name = new ObjectName("io.pg2lite:type=sink,connector=" + ObjectName.quote(connector));
    } catch (JMException e) {
      return new SinkMetrics(null, logEnd);
    }
    SinkMetrics m = new SinkMetrics(name, logEnd);
    return MBeans.register(m, name) ? m : new SinkMetrics(null, logEnd);
  }

  /** After a batch: {@code newTransactions} committed, {@code newRecords} applied, the replica at this position. */
  public void batchApplied(long newRecords, long newTransactions, String replicaWatermark, long replicaOffset,
      Instant lastCommitTime) {
    records += newRecords;
    transactions += newTransactions;
    rates.add(newRecords, newTransactions);
    if (replicaWatermark != null) {
      watermark = replicaWatermark;
      offset = replicaOffset;
    }
    if (lastCommitTime != null && newTransactions > 0) {
      millisBehind = Math.max(0, System.currentTimeMillis() - lastCommitTime.toEpochMilli());
    }
  }

  @Override
  public String getReplicaWatermark() {
    return watermark;
  }

  @Override
  public long getReplicaOffset() {
    return offset;
  }

  @Override
  public long getMillisBehindSource() {
    return millisBehind;
  }

  @Override
  public long getLagRecords() {
    long end = logEnd.get();
    return end < 0 ? -1 : Math.max(0, end - (offset + 1));
  }

  @Override
  public long getTransactionsTotal() {
    return transactions;
  }

  @Override
  public long getRecordsTotal() {
    return records;
  }

  @Override
  public double getTransactionsPerSecond() {
    return rates.transactionsPerSecond();
  }

  @Override
  public double getRecordsPerSecond() {
    return rates.recordsPerSecond();
  }

  @Override
  public void close() {
    MBeans.unregister(name);
  }
}
