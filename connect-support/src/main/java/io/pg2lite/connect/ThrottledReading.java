package io.pg2lite.connect;

import java.util.function.LongSupplier;

/**
 * A value that is costly to read (a query to Postgres, a request to Kafka), read again at most once
 * per interval however often a monitoring tool asks for it.
 */
public final class ThrottledReading {
  public static final long DEFAULT_INTERVAL_NANOS = 5_000_000_000L;

  private final LongSupplier source;
  private final LongSupplier nanoClock;
  private final long intervalNanos;
  private volatile long value = -1;
  private volatile long readAt;
  private volatile boolean read;

  public ThrottledReading(LongSupplier source) {
    this(source, System::nanoTime, DEFAULT_INTERVAL_NANOS);
  }

  ThrottledReading(LongSupplier source, LongSupplier nanoClock, long intervalNanos) {
    this.source = source;
    this.nanoClock = nanoClock;
    this.intervalNanos = intervalNanos;
  }

  public long get() {
    long now = nanoClock.getAsLong();
    if (!read || now - readAt > intervalNanos) {
      read = true;
      readAt = now;
      value = source.getAsLong();
    }
    return value;
  }
}
