package io.pg2lite.connect;

import java.util.function.LongSupplier;
import java.util.function.Supplier;

/**
 * A value that is costly to read (a query to Postgres, a request to Kafka), read again at most once
 * per interval however often a monitoring tool asks for it. Metrics that come from one query share
 * one reading (a record of them), so one look costs one query.
 *
 * @param <T> what one reading returns
 */
public final class ThrottledReading<T> {
  public static final long DEFAULT_INTERVAL_NANOS = 5_000_000_000L;

  private final Supplier<T> source;
  private final LongSupplier nanoClock;
  private final long intervalNanos;
  private volatile T value;
  private volatile long readAt;
  private volatile boolean read;

  public ThrottledReading(Supplier<T> source) {
    this(source, System::nanoTime, DEFAULT_INTERVAL_NANOS);
  }

  ThrottledReading(Supplier<T> source, LongSupplier nanoClock, long intervalNanos) {
    this.source = source;
    this.nanoClock = nanoClock;
    this.intervalNanos = intervalNanos;
  }

  /** A long figure read at most once per interval. */
  public static ThrottledReading<Long> ofLong(LongSupplier source) {
    return new ThrottledReading<>(source::getAsLong);
  }

  public T get() {
    long now = nanoClock.getAsLong();
    if (!read || now - readAt > intervalNanos) {
      read = true;
      readAt = now;
      value = source.get();
    }
    return value;
  }
}
