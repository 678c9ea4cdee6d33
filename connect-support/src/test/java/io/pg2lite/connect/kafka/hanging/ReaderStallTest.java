package io.pg2lite.connect.kafka.hanging;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import org.junit.jupiter.api.Test;

/** A reader's look is due only once it has been given nothing for the quiet time. */
class ReaderStallTest {
  private long nanos = 1_000_000_000L;
  private final ReaderStall stall = new ReaderStall(Duration.ofSeconds(10), () -> nanos);

  @Test
  void aLookIsDueAfterTheQuietTimeSinceTheStartOrTheLastRecords() {
    assertFalse(stall.due(), "a reader just started");
    nanos += 10_000_000_000L;
    assertTrue(stall.due());
    stall.delivered();
    nanos += 9_999_999_999L;
    assertFalse(stall.due(), "given records less than 10 s ago");
    nanos += 1;
    assertTrue(stall.due());
  }
}
