package io.pg2lite.source.metrics;

import io.pg2lite.connect.ThrottledReading;
import io.pg2lite.connect.metrics.FlowMetrics;
import io.pg2lite.protocol.message.Begin;
import io.pg2lite.protocol.message.Commit;
import io.pg2lite.protocol.progress.BackfillProgress;
import io.pg2lite.source.transaction.Emitted;
import java.time.Instant;
import java.util.function.LongSupplier;
import java.util.function.Supplier;
import javax.management.ObjectName;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Counters of the source task, published as an MBean; the flow figures both tasks share are
 * {@link FlowMetrics}'. Updated from the task thread only, read from JMX threads (volatile fields).
 */
public final class SourceMetrics extends FlowMetrics implements SourceMetricsMBean {
  private static final Logger LOG = LoggerFactory.getLogger(SourceMetrics.class);

  /** Lag and status come from one query, read at most every 5 s. */
  private final ThrottledReading<SlotReading> slot;
  private volatile long newLineages;
  private volatile String lastNewLineage = "";
  private volatile Supplier<String> ddlDetection = () -> "";
  private volatile LongSupplier lastCatalogCheck = () -> -1;
  private volatile String lastCommit = "";
  private final BackfillProgress backfills = new BackfillProgress();
  private Instant currentCommitTime;

  private final SourceStages commitStages = new SourceStages(stages());

  private SourceMetrics(Supplier<SlotReading> slot) {
    super(SourceStages.create());
    this.slot = new ThrottledReading<>(slot);
  }

  /** Where the task marks its live transactions' way from Postgres to Kafka. */
  public SourceStages commitStages() {
    return commitStages;
  }

  /** Registers the MBean (replacing a stale one of a previous task instance). */
  public static SourceMetrics register(String connector, String slot, Supplier<SlotReading> reading) {
    return register(new SourceMetrics(reading), "io.pg2lite:type=source,connector="
        + ObjectName.quote(connector) + ",slot=" + ObjectName.quote(slot), LOG);
  }

  /** This task started a new lineage ({@code resync.auto}), for {@code reason}. */
  public void newLineage(String reason) {
    newLineages++;
    lastNewLineage = reason;
  }

  @Override
  public String getSlotStatus() {
    return slot.get().status();
  }

  @Override
  public long getNewLineages() {
    return newLineages;
  }

  @Override
  public String getLastNewLineage() {
    return lastNewLineage;
  }

  public void recordEmitted(Emitted e) {
    if (e.entry() == null) {
      return;
    }
    backfills.observe(e.entry().message());
    long tx = 0;
    if (e.entry().message() instanceof Begin b) {
      currentCommitTime = b.commitTime();
    } else if (e.entry().message() instanceof Commit) {
      tx = 1;
      lastCommit = e.entry().watermark().toString();
      if (currentCommitTime != null) {
        lastCommittedAt(currentCommitTime);
      }
    }
    counted(1, tx);
  }

  @Override
  public String getBackfillProgress() {
    return backfills.describe();
  }

  @Override
  public long getBackfillRowsRemaining() {
    return backfills.rowsRemaining();
  }

  @Override
  public String getLastCommitWatermark() {
    return lastCommit;
  }

  /** Which {@link io.pg2lite.source.schema.DdlDetection} runs, and when its last catalog check was. */
  public void ddlDetection(java.util.function.Supplier<String> name, LongSupplier lastCheck) {
    ddlDetection = name;
    lastCatalogCheck = lastCheck;
  }

  @Override
  public String getDdlDetection() {
    return ddlDetection.get();
  }

  @Override
  public long getLastCatalogCheck() {
    return lastCatalogCheck.getAsLong();
  }

  @Override
  public long getSlotLagBytes() {
    return slot.get().lagBytes();
  }
}
