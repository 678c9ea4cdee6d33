package io.pg2lite.connect.failure;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pg2lite.testkit.support.RecordingLogger;
import java.net.ConnectException;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

class HealingTest {
  private long now = 1_000_000;
  private final RecordingLogger log = new RecordingLogger();
  private final Healing healing = Healing.forRetries("The thing", 4_000, 60_000, "retry.timeout.ms", log, () -> now);

  private static RuntimeException transientFault() {
    return new RuntimeException("wrapped", new ConnectException("Connection refused"));
  }

  @Test
  void aPermanentFaultIsThrownAsItIs() {
    IllegalStateException bug = new IllegalStateException("bug");
    assertSame(bug, assertThrows(IllegalStateException.class, () -> healing.failed(bug, "trying again")));
    assertTrue(log.lines().isEmpty(), "nothing logged: the task reports it");
  }

  @Test
  void transientFaultsBackOffDoublingToTheMaximumAndWaitForTheirTurn() throws InterruptedException {
    assertEquals(500, healing.failed(transientFault(), "trying again"));
    assertEquals(500, healing.untilNextAttempt());
    now += 499;
    assertFalse(healing.attemptDue(0), "not due before the wait is over");
    now += 1;
    assertTrue(healing.attemptDue(0));
    assertEquals(1_000, healing.failed(transientFault(), "trying again"));
    assertEquals(2_000, healing.failed(transientFault(), "trying again"));
    assertEquals(4_000, healing.failed(transientFault(), "trying again"));
    assertEquals(4_000, healing.failed(transientFault(), "trying again"), "never past retry.backoff.max.ms");
  }

  @Test
  void aFaultIsRoutineAtInfoThenWarnsOnceItLastsThenGivesUpNamingTheLimit() {
    healing.failed(transientFault(), "trying again");
    assertEquals("INFO The thing: transient fault (Connection refused); trying again in 500 ms", log.lines().get(0));
    now += Backoff.ROUTINE_MS;
    healing.failed(transientFault(), "trying again");
    assertTrue(log.lines().get(1).startsWith("WARN The thing: transient fault lasting 30 s (Connection refused)"),
        log.lines().get(1));
    now += 30_000;
    Healing.GaveUpException e = assertThrows(Healing.GaveUpException.class,
        () -> healing.failed(transientFault(), "trying again"));
    assertEquals("The thing kept failing for 60 s (retry.timeout.ms = 60000); last failure: Connection refused",
        e.getMessage());
  }

  @Test
  void aSuccessHealsAndSaysSoOnce() {
    healing.failed(transientFault(), "trying again");
    now += 700;
    healing.succeeded();
    healing.succeeded();
    assertEquals(List.of("INFO The thing: transient fault (Connection refused); trying again in 500 ms",
        "INFO The thing: running again after 700 ms"), log.lines());
    assertEquals(500, healing.failed(transientFault(), "trying again"), "the backoff starts over");
    assertEquals(0, healing.untilNextAttempt() - 500);
  }

  @Test
  void anOpenedThingIsHealthyOnlyAfterAQuietPeriod() {
    healing.failed(transientFault(), "reopening");
    healing.failed(transientFault(), "reopening");
    now += 1_000;
    healing.opened();
    assertFalse(healing.failing());
    now += 4_000;
    healing.steady();
    assertEquals(2_000, healing.failed(transientFault(), "reopening"),
        "a reopened reader failing within the quiet period keeps backing off");
    healing.opened();
    now += 4_001;
    healing.steady();
    assertEquals(500, healing.failed(transientFault(), "reopening"), "healthy after running the quiet period");
  }

  @Test
  void anExtraRuleMakesMoreFaultsTransient() {
    Healing lenient = healing.alsoTransient(e -> e instanceof IllegalStateException);
    assertEquals(500, lenient.failed(new IllegalStateException("slot in use"), "trying again"));
  }

  @Test
  void aCallerThatKnowsTheFaultIsTransientGivesAReason() {
    Healing never = new Healing("The copy of t", new Backoff(Duration.ofSeconds(2), Duration.ofSeconds(60),
        Duration.ofMillis(Long.MAX_VALUE), () -> now), e -> true, "never", log, () -> now, 0);
    assertEquals(2_000, never.failedTransiently("cut by a schema change", "retrying"));
    assertEquals("INFO The copy of t: transient fault (cut by a schema change); retrying in 2000 ms",
        log.lines().get(0));
  }
}
