package io.pg2lite.connect;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;

import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

class ConnectSupportTest {
  @Test
  void ratesCoverTheLastCompleteWindow() {
    AtomicLong now = new AtomicLong();
    WindowedRates rates = new WindowedRates(now::get, 10_000_000_000L);
    rates.add(500, 1);
    now.set(5_000_000_000L);
    rates.add(500, 1);
    assertEquals(0.0, rates.recordsPerSecond(), "no complete window yet");
    now.set(10_000_000_000L);
    rates.add(1000, 2);
    assertEquals(200.0, rates.recordsPerSecond());
    assertEquals(0.4, rates.transactionsPerSecond(), 1e-9);
  }

  @Test
  void aThrottledReadingAsksItsSourceAtMostOncePerInterval() {
    AtomicLong now = new AtomicLong(123);
    AtomicLong reads = new AtomicLong();
    ThrottledReading<Long> r = new ThrottledReading<>(reads::incrementAndGet, now::get, 5_000);
    assertEquals(1L, r.get());
    now.addAndGet(5_000);
    assertEquals(1L, r.get(), "within the interval: the last value");
    now.addAndGet(1);
    assertEquals(2L, r.get());
  }

  @Test
  void theVersionComesFromTheBuild() {
    assertNotEquals("unknown", PluginVersion.get());
  }
}
