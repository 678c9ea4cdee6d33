package io.pg2lite.sink.metrics;

import io.pg2lite.replica.figures.LineageFigures;
import io.pg2lite.replica.figures.SnapshotFigures;
import io.pg2lite.connect.ThrottledReading;
import io.pg2lite.connect.kafka.hanging.HangingTransactionWatchMBean;
import io.pg2lite.connect.metrics.FlowMetrics;
import io.pg2lite.protocol.progress.BackfillProgress;
import io.pg2lite.replica.verify.VerifyFigures;
import java.time.Instant;
import java.util.function.LongSupplier;
import javax.management.ObjectName;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Counters of the sink task, published as an MBean; the flow figures both tasks share are
 * {@link FlowMetrics}'. Written by the task thread only, read by JMX threads (volatile fields).
 */
public final class SinkMetrics extends FlowMetrics implements SinkMetricsMBean {
  private static final Logger LOG = LoggerFactory.getLogger(SinkMetrics.class);
  private final ThrottledReading<Long> logEnd;
  private volatile String watermark = "";
  private volatile long offset = -1;
  private final BackfillProgress backfills = new BackfillProgress();
  private volatile SnapshotFigures snapshots = SnapshotFigures.NONE;
  private volatile ThrottledReading<Long> oldestRestorable = ThrottledReading.ofLong(() -> -1);
  private volatile LongSupplier fullSince = () -> -1;
  private volatile ThrottledReading<Long> freeBytes = ThrottledReading.ofLong(() -> -1);
  private volatile LineageFigures lineage = LineageFigures.NONE;
  private volatile HangingTransactionWatchMBean hanging;
  private volatile VerifyFigures verify = VerifyFigures.NONE;

  private SinkMetrics(LongSupplier logEnd) {
    super(io.pg2lite.connect.metrics.ReplicaStages.create());
    this.logEnd = ThrottledReading.ofLong(logEnd);
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
    oldestRestorable = ThrottledReading.ofLong(figures::oldestRestorable);
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
  public long getSnapshotFailingSince() {
    return snapshots.failingSince();
  }

  @Override
  public long getOldestRestorableOffset() {
    return oldestRestorable.get();
  }

  /**
   * Where the replica's space figures come from: when it became full (epoch ms, -1 when it is
   * not), and the usable bytes of its filesystem (read at most every 5 s).
   */
  public void replicaSpace(LongSupplier fullSinceMs, LongSupplier usableBytes) {
    fullSince = fullSinceMs;
    freeBytes = ThrottledReading.ofLong(usableBytes);
  }

  @Override
  public long getReplicaFullSince() {
    return fullSince.getAsLong();
  }

  @Override
  public long getReplicaFreeBytes() {
    return freeBytes.get();
  }

  /** Where the lineage figures come from once the replica is open; {@link LineageFigures#NONE} before. */
  public void lineage(LineageFigures figures) {
    lineage = figures;
  }

  @Override
  public String getReplicaVersion() {
    return lineage.replicaVersion();
  }

  @Override
  public String getBuildingReplicaVersion() {
    return lineage.buildingVersion();
  }

  @Override
  public long getStrandedSince() {
    return lineage.strandedSince();
  }

  @Override
  public String getLastLineageSwap() {
    Instant at = lineage.lastSwap();
    return at == null ? "" : at.toString();
  }

  /** Where the hanging-transaction figures come from (none without the sink's admin client: 0). */
  public void hangingTransactions(HangingTransactionWatchMBean watch) {
    hanging = watch;
  }

  @Override
  public int getHangingTransactions() {
    HangingTransactionWatchMBean h = hanging;
    return h == null ? 0 : h.getHangingTransactions();
  }

  @Override
  public long getHangingTransactionsAbortedTotal() {
    HangingTransactionWatchMBean h = hanging;
    return h == null ? 0 : h.getHangingTransactionsAbortedTotal();
  }

  /** Where the verification figures come from; {@link VerifyFigures#NONE} before the replica opens. */
  public void verify(VerifyFigures figures) {
    verify = figures;
  }

  @Override
  public String getVerifiedAt() {
    return verify.verifiedAt();
  }

  @Override
  public long getVerifyMismatches() {
    return verify.mismatches();
  }

  /** Registers the MBean; {@code logEnd} reads the change log's end offset (-1 when unknown). */
  public static SinkMetrics register(String connector, LongSupplier logEnd) {
    return register(new SinkMetrics(logEnd), "io.pg2lite:type=sink,connector=" + ObjectName.quote(connector), LOG);
  }


  /** After a batch: {@code newTransactions} committed, {@code newRecords} applied, the replica at this position. */
  public void batchApplied(long newRecords, long newTransactions, String replicaWatermark, long replicaOffset,
      Instant lastCommitTime) {
    counted(newRecords, newTransactions);
    if (replicaWatermark != null) {
      watermark = replicaWatermark;
      offset = replicaOffset;
    }
    if (lastCommitTime != null && newTransactions > 0) {
      lastCommittedAt(lastCommitTime);
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
  public long getLagRecords() {
    long end = logEnd.get();
    return end < 0 ? -1 : Math.max(0, end - (offset + 1));
  }
}
