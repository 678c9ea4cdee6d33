package io.pg2lite.sink.metrics;

import java.lang.management.ManagementFactory;
import java.time.Instant;
import javax.management.InstanceAlreadyExistsException;
import javax.management.JMException;
import javax.management.MBeanServer;
import javax.management.ObjectName;

/**
 * Counters of the sink task, published as an MBean; written by the task thread only, read by JMX
 * threads (volatile fields). Rates use fixed 10-second windows.
 */
public final class SinkMetrics implements SinkMetricsMBean, AutoCloseable {
  private static final long WINDOW_NANOS = 10_000_000_000L;

  private final ObjectName name;
  private volatile String watermark = "";
  private volatile long offset = -1;
  private volatile long millisBehind = -1;
  private volatile long transactions;
  private volatile long records;
  private volatile double txRate;
  private volatile double recordRate;
  private long windowStart = System.nanoTime();
  private long windowTx;
  private long windowRecords;

  private final java.util.function.LongSupplier logEnd;
  private volatile long lagRecords = -1;
  private volatile long lagReadAt;

  private SinkMetrics(ObjectName name, java.util.function.LongSupplier logEnd) {
    this.name = name;
    this.logEnd = logEnd;
  }

  /** Registers the MBean; {@code logEnd} reads the change log's end offset (-1 when unknown). */
  public static SinkMetrics register(String connector, java.util.function.LongSupplier logEnd) {
    try {
      ObjectName name = new ObjectName("io.pg2lite:type=sink,connector=" + ObjectName.quote(connector));
      SinkMetrics m = new SinkMetrics(name, logEnd);
      MBeanServer server = ManagementFactory.getPlatformMBeanServer();
      try {
        server.registerMBean(m, name);
      } catch (InstanceAlreadyExistsException e) {
        server.unregisterMBean(name);
        server.registerMBean(m, name);
      }
      return m;
    } catch (JMException e) {
      return new SinkMetrics(null, logEnd);
    }
  }

  /** After a batch: {@code newTransactions} committed, {@code newRecords} applied, the replica at this position. */
  public void batchApplied(long newRecords, long newTransactions, String replicaWatermark, long replicaOffset,
      Instant lastCommitTime) {
    records += newRecords;
    transactions += newTransactions;
    windowRecords += newRecords;
    windowTx += newTransactions;
    if (replicaWatermark != null) {
      watermark = replicaWatermark;
      offset = replicaOffset;
    }
    if (lastCommitTime != null && newTransactions > 0) {
      millisBehind = Math.max(0, System.currentTimeMillis() - lastCommitTime.toEpochMilli());
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
    long now = System.nanoTime();
    if (lagReadAt == 0 || now - lagReadAt > 5_000_000_000L) {
      lagReadAt = now;
      long end = logEnd.getAsLong();
      lagRecords = end < 0 ? -1 : Math.max(0, end - (offset + 1));
    }
    return lagRecords;
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
    return txRate;
  }

  @Override
  public double getRecordsPerSecond() {
    return recordRate;
  }

  @Override
  public void close() {
    if (name != null) {
      try {
        ManagementFactory.getPlatformMBeanServer().unregisterMBean(name);
      } catch (JMException e) {
        // already gone
      }
    }
  }
}
