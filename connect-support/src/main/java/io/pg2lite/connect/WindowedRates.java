package io.pg2lite.connect;

import java.util.function.LongSupplier;

/**
 * Transactions and records per second over the last complete window (10 s by default), for the
 * MBeans. Counted by the task thread; read by JMX threads, hence the volatile rates.
 */
public final class WindowedRates {
  public static final long WINDOW_NANOS = 10_000_000_000L;

  private final LongSupplier nanoClock;
  private final long windowNanos;
  private long windowStart;
  private long windowTransactions;
  private long windowRecords;
  private volatile double transactionsPerSecond;
  private volatile double recordsPerSecond;

  public WindowedRates() {
    this(System::nanoTime, WINDOW_NANOS);
  }

  WindowedRates(LongSupplier nanoClock, long windowNanos) {
    this.nanoClock = nanoClock;
    this.windowNanos = windowNanos;
    this.windowStart = nanoClock.getAsLong();
  }

  public void add(long records, long transactions) {
    windowRecords += records;
    windowTransactions += transactions;
    long now = nanoClock.getAsLong();
    if (now - windowStart >= windowNanos) {
      double seconds = (now - windowStart) / 1e9;
      transactionsPerSecond = windowTransactions / seconds;
      recordsPerSecond = windowRecords / seconds;
      windowTransactions = 0;
      windowRecords = 0;
      windowStart = now;
    }
  }

  public double transactionsPerSecond() {
    return transactionsPerSecond;
  }

  public double recordsPerSecond() {
    return recordsPerSecond;
  }
}
