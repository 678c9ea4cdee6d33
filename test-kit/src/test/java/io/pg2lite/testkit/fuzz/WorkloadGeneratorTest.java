package io.pg2lite.testkit.fuzz;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;
import java.util.stream.LongStream;
import org.junit.jupiter.api.Test;

/** A seed names one workload, and a few seeds cover what issue 10 asks for. */
class WorkloadGeneratorTest {
  @Test
  void aSeedAlwaysGivesTheSameScript() {
    assertEquals(WorkloadGenerator.generate(7, 60, FuzzFeature.all()).script(),
        WorkloadGenerator.generate(7, 60, FuzzFeature.all()).script());
    assertNotEquals(WorkloadGenerator.generate(7, 60, FuzzFeature.all()).script(),
        WorkloadGenerator.generate(8, 60, FuzzFeature.all()).script());
  }

  /** What the default seeds of FuzzIT (1, 2, 27) contain between them. */
  @Test
  void theDefaultSeedsCoverTheIssuesList() {
    String all = LongStream.of(1, 2, 27).mapToObj(s -> WorkloadGenerator.generate(s, 60, FuzzFeature.all()).script())
        .collect(Collectors.joining("\n"));
    Map<String, String> expected = Map.ofEntries(
        Map.entry("explicit NULL", "NULL"),
        Map.entry("DEFAULT keyword", "DEFAULT,"),
        Map.entry("TOAST-sized text", "string_agg(md5("),
        Map.entry("-0.0", "'-0'::float"),
        Map.entry("NaN", "'NaN'::"),
        Map.entry("Infinity", "'-Infinity'::"),
        Map.entry("numeric extreme", "'1e-300'::numeric"),
        Map.entry("year 1", "0001-01-01"),
        Map.entry("array with NULL", "NULL]::text[]"),
        Map.entry("json with quotes", "\\\"uote"),
        Map.entry("key change", "SET \""),
        Map.entry("truncate", "TRUNCATE "),
        Map.entry("rollback", "ROLLBACK;"),
        Map.entry("savepoint rollback", "ROLLBACK TO SAVEPOINT sp"),
        Map.entry("second session", "/* [s1] */ BEGIN"),
        Map.entry("create table", "CREATE TABLE \""),
        Map.entry("drop table", "DROP TABLE \""),
        Map.entry("rename table", "RENAME TO"),
        Map.entry("add column", "ADD COLUMN"),
        Map.entry("volatile default", "DEFAULT gen_random_uuid()"),
        Map.entry("rename column", "RENAME COLUMN"),
        Map.entry("drop column", "DROP COLUMN"),
        Map.entry("retype", " TYPE "),
        Map.entry("index", "INDEX \""),
        Map.entry("drop index", "DROP INDEX"),
        Map.entry("primary key change", "DROP CONSTRAINT"),
        Map.entry("publication add", "ADD TABLE"),
        Map.entry("publication drop", "ALTER PUBLICATION fuzz_pub DROP TABLE"),
        Map.entry("quoted names", "\"\""),
        Map.entry("worker restart", "-- restart WORKER"),
        Map.entry("source restart", "-- restart SOURCE"),
        Map.entry("sink restart", "-- restart SINK"),
        Map.entry("infinity", "'infinity'::"),
        Map.entry("time 24:00", "'24:00:00'::time"),
        Map.entry("BC date", " BC'"),
        Map.entry("two dimensions", "'{{"),
        Map.entry("numeric array", "::numeric[]"),
        Map.entry("point", "::point"),
        Map.entry("money", "::money"),
        Map.entry("bit string", "::varbit"));
    List<String> missing = expected.entrySet().stream().filter(e -> !all.contains(e.getValue())).map(Map.Entry::getKey)
        .sorted().toList();
    assertTrue(missing.isEmpty(), "seeds 1, 2, 27 never generate: " + missing);
  }

  @Test
  void aDisabledFeatureIsNeverGenerated() {
    Set<FuzzFeature> features = FuzzFeature.allExcept("negative_zero,RETYPE,restarts");
    for (long seed = 1; seed <= 20; seed++) {
      String script = WorkloadGenerator.generate(seed, 60, features).script();
      assertFalse(script.contains("'-0'::float"), "seed " + seed);
      assertFalse(script.contains(" TYPE "), "seed " + seed);
      assertFalse(script.contains("-- restart"), "seed " + seed);
    }
  }

  @Test
  void aSlotLossFallsBetweenTransactionsAndLeavesTheStatementsAsTheyWere() {
    for (long seed = 1; seed <= 20; seed++) {
      Workload plain = WorkloadGenerator.generate(seed, 60, FuzzFeature.all());
      Workload lost = plain.withSlotLoss();
      List<Action> actions = lost.actions();
      int at = -1;
      for (int i = 0; i < actions.size(); i++) {
        if (actions.get(i) instanceof Action.Restart r && r.kind() == Action.RestartKind.SLOT_LOST) {
          assertEquals(-1, at, "seed " + seed + ": one loss");
          at = i;
        }
      }
      assertTrue(at > 0, "seed " + seed + ": a loss");
      List<Action> without = new java.util.ArrayList<>(actions);
      without.remove(at);
      assertEquals(plain.actions(), without, "seed " + seed + ": the same statements");
      boolean[] open = new boolean[2];
      for (Action a : actions.subList(0, at)) {
        if (a instanceof Action.Sql sql) {
          open[sql.session()] = sql.sql().equals("BEGIN") || open[sql.session()] && !sql.sql().equals("COMMIT")
              && !sql.sql().equals("ROLLBACK");
        }
      }
      assertTrue(!open[0] && !open[1], "seed " + seed + ": no transaction open at the loss");
      assertEquals(plain.actions(), WorkloadGenerator.generate(seed, 60,
          FuzzFeature.allExcept("slot_loss")).withSlotLoss().actions(), "off: no loss");
    }
  }

  /** A later round of a soak: its own names, its tables added to round 0's publication, no marker. */
  @Test
  void aLaterRoundNamesItsTablesApartAndAddsThemToThePublication() {
    Set<FuzzFeature> features = FuzzFeature.allExcept("restarts");
    Workload first = WorkloadGenerator.generateRound(5, 0, 60, features);
    assertEquals(WorkloadGenerator.generate(5, 60, features).script(), first.script(), "round 0 is generate's");
    Workload later = WorkloadGenerator.generateRound(5, 3, 60, features);
    String setup = later.setup().stream().map(a -> ((Action.Sql) a).sql()).collect(Collectors.joining("\n"));
    assertFalse(setup.contains(WorkloadGenerator.MARKER), setup);
    assertFalse(setup.contains("CREATE PUBLICATION"), setup);
    assertTrue(setup.contains("ALTER PUBLICATION fuzz_pub ADD TABLE "), setup);
    java.util.regex.Matcher created = java.util.regex.Pattern.compile("CREATE TABLE \"(?:[^\"]|\"\")*_([0-9]+)\"")
        .matcher(later.script());
    int tables = 0;
    while (created.find()) {
      tables++;
      assertTrue(Integer.parseInt(created.group(1)) > 30_000, "round 3's names from 30,001 on: " + created.group());
    }
    assertTrue(tables >= 3, "round 3 creates tables");
  }

  @Test
  void unitsCutTheActionsWhereNoTransactionIsOpen() {
    for (long seed = 1; seed <= 10; seed++) {
      Workload w = WorkloadGenerator.generate(seed, 60, FuzzFeature.allExcept("restarts"));
      List<List<Action>> units = w.units();
      assertEquals(w.actions(), units.stream().flatMap(List::stream).toList(), "seed " + seed + ": all, in order");
      for (List<Action> unit : units) {
        long begins = unit.stream().filter(a -> a instanceof Action.Sql s && s.sql().equals("BEGIN")).count();
        long ends = unit.stream().filter(a -> a instanceof Action.Sql s
            && (s.sql().equals("COMMIT") || s.sql().equals("ROLLBACK"))).count();
        assertEquals(begins, ends, "seed " + seed + ": every transaction ends in its unit: " + unit);
        assertTrue(begins <= 2, "seed " + seed + ": at most two interleaved transactions a unit: " + unit);
      }
    }
  }
}
