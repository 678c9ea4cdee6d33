package io.pg2lite.sink.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The soak's claims over its minutes: which minutes are compared, and the bounds. */
class SoakVerdictsTest {
  /** A minute with one worker: heap and RSS {@code mb}, p99 {@code p99} ms, a fault or none. */
  private static SoakMinute minute(int m, long mb, double p99, String fault) {
    boolean quiet = fault.isEmpty();
    return new SoakMinute(m, new long[] {mb}, new long[] {mb}, new long[] {100}, p99 / 2, p99, 240,
        quiet ? p99 / 2 : Double.NaN, quiet ? p99 : Double.NaN, quiet ? 240 : 0, 0, 1, 50, fault);
  }

  private static List<SoakMinute> run(int minutes, long firstMb, long secondMb, double firstP99, double secondP99) {
    List<SoakMinute> rows = new ArrayList<>();
    int half = SoakVerdicts.warmUpMinutes(minutes) + (minutes - SoakVerdicts.warmUpMinutes(minutes)) / 2;
    for (int m = 0; m < minutes; m++) {
      boolean second = m >= half;
      rows.add(minute(m, m == 0 ? 5 * firstMb : second ? secondMb : firstMb, second ? secondP99 : firstP99,
          m % 3 == 1 ? "leader-killed" : ""));
    }
    return rows;
  }

  @Test
  void theHalvesComeAfterAWarmUpOfATenthOfTheRun() {
    assertEquals(6, SoakVerdicts.warmUpMinutes(60));
    assertEquals(1, SoakVerdicts.warmUpMinutes(10));
    assertEquals(1, SoakVerdicts.warmUpMinutes(3));
    List<List<SoakMinute>> sixty = SoakVerdicts.halves(run(60, 100, 100, 50, 50), 60);
    assertEquals(List.of(6, 32), List.of(sixty.get(0).get(0).minute(), sixty.get(0).get(26).minute()));
    assertEquals(List.of(33, 59, 27), List.of(sixty.get(1).get(0).minute(), sixty.get(1).get(26).minute(),
        sixty.get(1).size()));
    List<List<SoakMinute>> ten = SoakVerdicts.halves(run(10, 100, 100, 50, 50), 10);
    assertEquals(4, ten.get(0).size());
    assertEquals(5, ten.get(1).size());
  }

  @Test
  void memoryIsFlatWithinTenPercentEitherWayAndTheWarmUpDoesNotCount() {
    assertTrue(SoakVerdicts.flat("heap", run(60, 200, 219, 50, 50), 60, SoakMinute::heapSum).pass(),
        "+9.5 %, and minute 0's 1,000 MB is the warm-up's");
    assertFalse(SoakVerdicts.flat("heap", run(60, 200, 221, 50, 50), 60, SoakMinute::heapSum).pass(), "+10.5 %");
    assertFalse(SoakVerdicts.flat("heap", run(60, 200, 179, 50, 50), 60, SoakMinute::heapSum).pass(), "-10.5 %");
  }

  @Test
  void p99MayNotRiseMoreThanAQuarterInMinutesWithoutAFault() {
    assertTrue(SoakVerdicts.p99WithoutDrift(run(60, 100, 100, 80, 99), 60).pass(), "+24 %");
    assertFalse(SoakVerdicts.p99WithoutDrift(run(60, 100, 100, 80, 101), 60).pass(), "+26 %");
    assertTrue(SoakVerdicts.p99WithoutDrift(run(60, 100, 100, 80, 40), 60).pass(), "a fall is no drift");
  }

  /** A 10-minute run with a fault every 2 minutes has one or two quiet minutes a half: too few to judge. */
  @Test
  void withFewerThanThreeQuietMinutesInAHalfTheDriftIsNotJudged() {
    List<SoakMinute> rows = new ArrayList<>(run(10, 100, 100, 80, 800));
    rows.replaceAll(r -> r.minute() % 2 == 1 ? minute(r.minute(), 100, 5000, "leader-paused") : r);
    SoakVerdicts.Verdict v = SoakVerdicts.p99WithoutDrift(rows, 10);
    assertFalse(v.judged(), v.toString());
    assertTrue(v.pass(), "not judged does not fail the run");
    assertTrue(v.toString().startsWith("N/A"), v.toString());
  }

  @Test
  void aMinuteWithTooFewProbeRowsThatMetNoFaultDoesNotCountForTheP99() {
    List<SoakMinute> rows = new ArrayList<>(run(60, 100, 100, 80, 80));
    rows.replaceAll(r -> r.minute() == 40 ? minute(40, 100, 60_000, "leader-paused") : r);
    assertTrue(SoakVerdicts.p99WithoutDrift(rows, 60).pass());
  }
}
