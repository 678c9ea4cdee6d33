package io.pg2lite.testkit.fuzz;

import java.util.List;
import java.util.Random;

/**
 * What every part of the workload generator draws from: the one {@link Random} of the seed (its
 * calls, in order, are the workload: a seed names one exact script only while every part draws in
 * the same order, which {@code WorkloadFingerprintTest} holds), the enabled features, the counters
 * that keep ids and names unique, and the list the statements go to.
 */
abstract class GeneratorPart {
  protected final Draws draws;
  protected final Random random;
  protected final Literals literals;

  GeneratorPart(Draws draws) {
    this.draws = draws;
    this.random = draws.random;
    this.literals = draws.literals;
  }

  /** A quoted SQL identifier. */
  static String ident(String name) {
    return '"' + name.replace("\"", "\"\"") + '"';
  }

  protected final boolean on(FuzzFeature f) {
    return draws.features.contains(f);
  }

  protected final boolean chance(int percent) {
    return random.nextInt(100) < percent;
  }

  protected final <T> T pick(List<T> items) {
    return items.get(random.nextInt(items.size()));
  }

  /** A fresh name: one of {@code bases} (the first only, without quoted names) and a number. */
  protected final String name(String[] bases) {
    String base = on(FuzzFeature.QUOTED_NAMES) ? bases[random.nextInt(bases.length)] : bases[0];
    return base + "_" + draws.nextName++;
  }

  protected final void sql(String statement) {
    draws.out.add(new Action.Sql(0, statement));
  }

  protected final void sql(int session, String statement) {
    draws.out.add(new Action.Sql(session, statement));
  }
}
