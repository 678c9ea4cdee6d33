package io.pg2lite.source.metrics;

import io.pg2lite.connect.MBeans;
import io.pg2lite.connect.ThrottledReading;
import io.pg2lite.connect.WindowedRates;
import io.pg2lite.protocol.message.Begin;
import io.pg2lite.protocol.message.Commit;
import io.pg2lite.source.transaction.Emitted;
import java.time.Instant;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongSupplier;
import javax.management.JMException;
import javax.management.ObjectName;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Counters of the source task, published as an MBean. Updated from the task thread only;
 * read from JMX threads, hence the atomics. Rates are computed over fixed 10-second windows so a
 * reader sees a stable figure rather than one that jumps with each poll.
 */
public final class SourceMetrics implements SourceMetricsMBean, AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(SourceMetrics.class);

  private final ObjectName name;
  private final AtomicLong transactions = new AtomicLong();
  private final AtomicLong records = new AtomicLong();
  private final WindowedRates rates = new WindowedRates();
  private final ThrottledReading slotLag;
  private volatile String lastCommit = "";
  private final io.pg2lite.protocol.progress.BackfillProgress backfills = new io.pg2lite.protocol.progress.BackfillProgress();
  private volatile long millisBehind = -1;
  private volatile Instant currentCommitTime;

  private SourceMetrics(ObjectName name, LongSupplier slotLag) {
    this.name = name;
    this.slotLag = new ThrottledReading(slotLag);
  }

  /** Registers the MBean (replacing a stale one of a previous task instance). */
  public static SourceMetrics register(String connector, String slot, LongSupplier slotLag) {
    ObjectName name = null;
    try {
      name = new ObjectName("io.pg2lite:type=source,connector=" + ObjectName.quote(connector)
          + ",slot=" + ObjectName.quote(slot));
    } catch (JMException e) {
      LOG.warn("Cannot name the source metrics MBean: {}", e.toString());
    }
    SourceMetrics m = new SourceMetrics(name, slotLag);
    if (name != null && !MBeans.register(m, name)) {
      LOG.warn("Cannot register the source metrics MBean {}", name);
      return new SourceMetrics(null, slotLag);
    }
    return m;
  }

  public void recordEmitted(Emitted e) {
    if (e.isHeartbeat()) {
      return;
    }
    records.incrementAndGet();
    backfills.observe(e.entry().message());
    long tx = 0;
    if (e.entry().message() instanceof Begin b) {
      currentCommitTime = b.commitTime();
    } else if (e.entry().message() instanceof Commit) {
      transactions.incrementAndGet();
      tx = 1;
      lastCommit = e.entry().watermark().toString();
      Instant t = currentCommitTime;
      millisBehind = t == null ? millisBehind : Math.max(0, System.currentTimeMillis() - t.toEpochMilli());
    }
    rates.add(1, tx);
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

  @Override
  public long getTransactionsTotal() {
    return transactions.get();
  }

  @Override
  public long getRecordsTotal() {
    return records.get();
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
  public long getSlotLagBytes() {
    return slotLag.get();
  }

  @Override
  public long getMillisBehindSource() {
    return millisBehind;
  }

  @Override
  public void close() {
    MBeans.unregister(name);
  }
}
