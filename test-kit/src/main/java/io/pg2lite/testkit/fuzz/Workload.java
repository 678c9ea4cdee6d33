package io.pg2lite.testkit.fuzz;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Set;

/**
 * A generated workload: the {@code setup} runs before the pipeline starts (its rows reach the
 * replica through the initial backfill), the {@code actions} while it runs. The same seed and
 * features always give the same workload.
 *
 * @param publication the publication the source must use; {@code marker} is always in it
 * @param marker a published table ({@code id int PRIMARY KEY, n bigint}, one row with id 1) that the
 *     workload never touches, for the runner's final marker transaction
 */
public record Workload(long seed, Set<FuzzFeature> features, String publication, String marker,
    List<Action> setup, List<Action> actions) {

  /** The workload as a SQL script a developer can replay with psql (sessions and restarts as comments). */
  public String script() {
    StringBuilder sb = new StringBuilder();
    sb.append("-- pg2lite fuzz workload, seed ").append(seed).append('\n');
    sb.append("-- features: ").append(new java.util.TreeSet<>(features)).append('\n'); // in one order on every JVM
    sb.append("-- statements marked [s1] run on a second connection; interleaving is the file order\n");
    sb.append("SET TimeZone = 'UTC';\n\n-- setup (before the source starts)\n");
    append(sb, setup);
    sb.append("\n-- workload (while the pipeline runs)\n");
    append(sb, actions);
    return sb.toString();
  }

  private static void append(StringBuilder sb, List<Action> actions) {
    for (Action a : actions) {
      if (a instanceof Action.Sql s) {
        sb.append(s.session() == 0 ? "" : "/* [s" + s.session() + "] */ ").append(s.sql()).append(";\n");
      } else if (a instanceof Action.Restart r) {
        sb.append("-- restart ").append(r.kind()).append('\n');
      } else if (a instanceof Action.Pause p) {
        sb.append("-- pause ").append(p.millis()).append(" ms\n");
      }
    }
  }

  /**
   * This workload with the source's slot lost once ({@link Action.RestartKind#SLOT_LOST}) at a
   * point drawn from the seed alone, when {@link FuzzFeature#SLOT_LOSS} is on; else this workload.
   * Drawn apart from the generator, so the statements a seed generates stay what they were. The
   * point is between transactions: Postgres creates the new lineage's slot only once the
   * transactions open at that moment have ended, and the runner, which holds them, waits for
   * the pipeline while it handles the loss.
   */
  public Workload withSlotLoss() {
    if (!features.contains(FuzzFeature.SLOT_LOSS) || actions.isEmpty()) {
      return this;
    }
    boolean[] idleBefore = idleBefore();
    List<Integer> idle = new java.util.ArrayList<>();
    for (int i = actions.size() / 4; i <= actions.size() * 3 / 4; i++) {
      if (idleBefore[i]) {
        idle.add(i); // in the middle half: changes before the loss and after it
      }
    }
    if (idle.isEmpty()) {
      return this;
    }
    int at = idle.get(new java.util.Random(seed * 7919 + 35).nextInt(idle.size()));
    List<Action> with = new java.util.ArrayList<>(actions);
    with.add(at, new Action.Restart(Action.RestartKind.SLOT_LOST));
    return new Workload(seed, features, publication, marker, setup, List.copyOf(with));
  }

  /** How many verification requests {@link #withVerifications} adds. */
  public static final int VERIFICATIONS = 3;

  /** The id of the {@code k}-th verification request of this workload. */
  public String verificationId(int k) {
    return "fuzz-" + seed + "-" + k;
  }

  /**
   * The workload with {@link #VERIFICATIONS} verification requests of every published table at
   * points drawn from the seed (with {@link FuzzFeature#VERIFY}): on session 0, inside whatever it
   * has open (a request in a transaction that rolls back never arrives) or between transactions.
   */
  public Workload withVerifications() {
    if (!features.contains(FuzzFeature.VERIFY) || actions.isEmpty()) {
      return this;
    }
    java.util.Random random = new java.util.Random(seed * 7919 + 29);
    java.util.TreeMap<Integer, Integer> at = new java.util.TreeMap<>();
    for (int k = 0; k < VERIFICATIONS; k++) {
      at.put(actions.size() / 8 + random.nextInt(Math.max(1, actions.size() * 3 / 4)), k);
    }
    List<Action> with = new java.util.ArrayList<>(actions);
    for (var e : at.descendingMap().entrySet()) {
      with.add(Math.min(e.getKey(), with.size()), new Action.Sql(0, "SELECT pg_logical_emit_message(true, "
          + "'pg2lite.verify', '{\"id\":\"" + verificationId(e.getValue()) + "\"}')"));
    }
    return new Workload(seed, features, publication, marker, setup, List.copyOf(with));
  }

  /**
   * The actions cut where no transaction is open on either session: each part a transaction (or
   * two interleaved ones), a statement in autocommit or a pause. A caller may run the parts with
   * time between them (a soak paces them) without holding a transaction open meanwhile.
   */
  public List<List<Action>> units() {
    boolean[] idleBefore = idleBefore();
    List<List<Action>> out = new java.util.ArrayList<>();
    for (int i = 0; i < actions.size(); i++) {
      if (idleBefore[i]) {
        out.add(new java.util.ArrayList<>());
      }
      out.get(out.size() - 1).add(actions.get(i));
    }
    return out.stream().map(List::copyOf).toList();
  }

  /** Whether no transaction is open on either session before action {@code i} (and after the last, at index size). */
  private boolean[] idleBefore() {
    boolean[] idle = new boolean[actions.size() + 1];
    boolean[] open = new boolean[2];
    for (int i = 0; i < actions.size(); i++) {
      idle[i] = !open[0] && !open[1];
      if (actions.get(i) instanceof Action.Sql sql) {
        String statement = sql.sql().strip().toUpperCase(java.util.Locale.ROOT);
        if (statement.equals("BEGIN")) {
          open[sql.session()] = true;
        } else if (statement.equals("COMMIT") || statement.equals("ROLLBACK")) {
          open[sql.session()] = false;
        }
      }
    }
    idle[actions.size()] = !open[0] && !open[1];
    return idle;
  }

  /** Writes {@link #script()} to {@code file} (directories created); returns the file. */
  public Path writeScript(Path file) throws IOException {
    Files.createDirectories(file.toAbsolutePath().getParent());
    Files.writeString(file, script(), StandardCharsets.UTF_8);
    return file;
  }

  /** How many actions of each kind, for the log: {@code 412 statements, 3 restarts}. */
  public String summary() {
    long sql = actions.stream().filter(a -> a instanceof Action.Sql).count();
    long restarts = actions.stream().filter(a -> a instanceof Action.Restart).count();
    return (setup.size() + sql) + " statements, " + restarts + " restarts";
  }
}
