package io.pg2lite.testkit.fuzz;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.pg2lite.testkit.TestStack;
import io.pg2lite.testkit.TestStackExtension;
import io.pg2lite.testkit.postgres.PostgresServer;
import io.pg2lite.testkit.postgres.TestDatabase;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Every generated statement runs in Postgres without error, for many seeds: the generator's model
 * is right, so FuzzIT's workloads are exactly the scripts their seeds name. No pipeline here;
 * restarts do nothing.
 */
@ExtendWith(TestStackExtension.class)
class WorkloadGeneratorIT {
  private static final int SEEDS = Integer.getInteger("pg2lite.fuzz.generatorSeeds", 10);

  @Test
  void generatedWorkloadsRunWithoutErrors(TestStack stack) throws Exception {
    PostgresServer server = stack.postgres();
    List<String> failures = new ArrayList<>();
    for (long seed = 1; seed <= SEEDS; seed++) {
      try (TestDatabase db = server.newDatabase("fuzzgen");
          WorkloadRunner runner = new WorkloadRunner(db.jdbcUrl(), server.user(), server.password(), k -> { })) {
        Workload w = WorkloadGenerator.generate(seed, 60, FuzzFeature.all());
        runner.run(w.setup());
        runner.run(w.actions().stream().filter(a -> !(a instanceof Action.Pause)).toList());
        runner.failures().forEach(f -> failures.add("seed " + w.seed() + ": " + f));
      }
    }
    assertEquals(List.of(), failures.subList(0, Math.min(10, failures.size())), failures.size() + " statements failed");
  }

  /** Rounds of a soak ({@link WorkloadGenerator#generateRound}) run one after another in one database. */
  @Test
  void roundsRunOneAfterAnotherInOneDatabase(TestStack stack) throws Exception {
    PostgresServer server = stack.postgres();
    List<String> failures = new ArrayList<>();
    try (TestDatabase db = server.newDatabase("fuzzrounds");
        WorkloadRunner runner = new WorkloadRunner(db.jdbcUrl(), server.user(), server.password(), k -> { })) {
      for (int round = 0; round < 3; round++) {
        Workload w = WorkloadGenerator.generateRound(1, round, 60, FuzzFeature.allExcept("restarts"));
        runner.run(w.setup());
        runner.run(w.actions().stream().filter(a -> !(a instanceof Action.Pause)).toList());
      }
      failures.addAll(runner.failures());
    }
    assertEquals(List.of(), failures.subList(0, Math.min(10, failures.size())), failures.size() + " statements failed");
  }
}
