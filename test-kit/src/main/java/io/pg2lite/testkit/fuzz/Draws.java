package io.pg2lite.testkit.fuzz;

import java.util.List;
import java.util.Random;
import java.util.Set;

/** The state the parts of the workload generator share ({@link GeneratorPart}). */
final class Draws {
  final Random random;
  final Set<FuzzFeature> features;
  final Literals literals;
  /** Ids never used before: new rows, and keys moved by a key change. */
  long nextId = 1;
  /** Makes every generated name unique. */
  int nextName = 1;
  /** Each range key change moves ids by a multiple of ten million never used before. */
  long nextShift = 1;
  /** Where the statements go (the setup's list, then the workload's). */
  List<Action> out;

  Draws(long seed, Set<FuzzFeature> features) {
    this.random = new Random(seed);
    this.features = features;
    this.literals = new Literals(random, features);
  }
}
