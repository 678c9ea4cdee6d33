package io.pg2lite.source.lineage;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import io.pg2lite.testkit.support.Await;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

class StrandedWatchTest {
  private static final Duration WAIT = Duration.ofSeconds(10);

  /**
   * A look still running when the new lineage begins ends with a finding about the old one. That
   * finding must not count, nor keep the watch from looking at the new lineage: a replica
   * stranded on it later would otherwise wait for a person.
   */
  @Test
  void aLookThatOutlivesItsLineageNeitherCountsNorStopsTheWatch() throws Exception {
    CountDownLatch lookingAtV1 = new CountDownLatch(1);
    CountDownLatch newLineageBegun = new CountDownLatch(1);
    AtomicReference<String> lastLooked = new AtomicReference<>();
    try (StrandedWatch watch = new StrandedWatch(v -> {
      lastLooked.set(v);
      if (v.equals("v1")) {
        lookingAtV1.countDown();
        try {
          newLineageBegun.await();
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
        }
      }
      return Optional.of("stranded on " + v);
    }, 10, "test")) {
      watch.following("v1");
      lookingAtV1.await();
      watch.following("v2"); // the lineage ended for another reason while the look ran
      newLineageBegun.countDown();
      Await.until("a look at v2", WAIT, () -> "v2".equals(lastLooked.get()));
      String[] taken = new String[1];
      Await.until("v2's finding handed over", WAIT, () -> (taken[0] = watch.take()) != null);
      assertEquals("stranded on v2", taken[0], "the finding about v1 is dropped");
      assertNull(watch.take(), "handed over once");
    }
  }
}
