package io.pg2lite.source.metrics;

import io.pg2lite.protocol.message.Begin;
import io.pg2lite.protocol.message.Commit;
import io.pg2lite.source.transaction.Emitted;
import java.lang.management.ManagementFactory;
import java.time.Instant;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongSupplier;
import javax.management.InstanceAlreadyExistsException;
import javax.management.JMException;
import javax.management.MBeanServer;
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
  private static final long WINDOW_NANOS = 10_000_000_000L;

  private final ObjectName name;
  private final AtomicLong transactions = new AtomicLong();
  private final AtomicLong records = new AtomicLong();
  private volatile String lastCommit = "";
  private volatile long millisBehind = -1;
  private volatile Instant currentCommitTime;
  private long windowStart = System.nanoTime();
  private long windowTx;
  private long windowRecords;
  private volatile double txRate;
  private volatile double recordRate;

  private final LongSupplier slotLag;
  private volatile long slotLagBytes = -1;
  private volatile long slotLagReadAt;

  private SourceMetrics(ObjectName name, LongSupplier slotLag) {
    this.name = name;
    this.slotLag = slotLag;
  }

  /** Registers the MBean (replacing a stale one of a previous task instance). */
  public static SourceMetrics register(String connector, String slot, LongSupplier slotLag) {
    try {
      ObjectName name = new ObjectName("io.pg2lite:type=source,connector=" + ObjectName.quote(connector)
          + ",slot=" + ObjectName.quote(slot));
      SourceMetrics m = new SourceMetrics(name, slotLag);
      MBeanServer server = ManagementFactory.getPlatformMBeanServer();
      try {
        server.registerMBean(m, name);
      } catch (InstanceAlreadyExistsException e) {
        server.unregisterMBean(name);
        server.registerMBean(m, name);
      }
      return m;
    } catch (JMException e) {
      LOG.warn("Cannot register source metrics MBean: {}", e.toString());
      return new SourceMetrics(null, slotLag);
    }
  }

  public void recordEmitted(Emitted e) {
    if (e.isHeartbeat()) {
      return;
    }
    records.incrementAndGet();
    windowRecords++;
    if (e.entry().message() instanceof Begin b) {
      currentCommitTime = b.commitTime();
    } else if (e.entry().message() instanceof Commit) {
      transactions.incrementAndGet();
      windowTx++;
      lastCommit = e.entry().watermark().toString();
      Instant t = currentCommitTime;
      millisBehind = t == null ? millisBehind : Math.max(0, System.currentTimeMillis() - t.toEpochMilli());
    }
    long now = System.nanoTime();
    if (now - windowStart >= WINDOW_NANOS) {
      double seconds = (now - windowStart) / 1e9;
      txRate = windowTx / seconds;
      recordRate = windowRecords / seconds;
      windowTx = 0;
      windowRecords = 0;
      windowStart = now;
    }
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
    return txRate;
  }

  @Override
  public double getRecordsPerSecond() {
    return recordRate;
  }

  @Override
  public long getSlotLagBytes() {
    long now = System.nanoTime();
    if (slotLagReadAt == 0 || now - slotLagReadAt > 5_000_000_000L) {
      slotLagReadAt = now;
      slotLagBytes = slotLag.getAsLong();
    }
    return slotLagBytes;
  }

  @Override
  public long getMillisBehindSource() {
    return millisBehind;
  }

  @Override
  public void close() {
    if (name == null) {
      return;
    }
    try {
      ManagementFactory.getPlatformMBeanServer().unregisterMBean(name);
    } catch (JMException e) {
      LOG.debug("MBean {} already gone", name);
    }
  }
}
