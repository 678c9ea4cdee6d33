package io.pg2lite.testkit.fuzz;

import io.pg2lite.testkit.fuzz.SchemaModel.Table;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Set;
import java.util.stream.Collectors;

/**
 * Generates a random workload from a seed: DML transactions (inserts, updates, deletes, key
 * changes, upserts, NULLs, defaults, TOAST-sized values, edge values of every type), rollbacks
 * and savepoints, truncates, two interleaved sessions, DDL (tables, columns, types, indexes,
 * primary keys, publication membership, names that need quoting) and restarts of the pipeline.
 *
 * <p>Determinism: one {@link Random} seeded with the seed drives every choice, and nothing is
 * read from the database, so a seed names one exact SQL script ({@link Workload#script()}).
 * Validity: statements are generated against a {@link SchemaModel} of the state they will meet, so
 * they do not fail (no duplicate keys, no NULL into NOT NULL, no casts that can fail, no lock
 * waits between the sessions: concurrent transactions touch different tables and run DML only).
 *
 * <p>Coverage: every enabled DDL kind, restarts, truncates and concurrent transactions are put in
 * the plan of every seed, then shuffled among the DML transactions.
 *
 * <p>Not generated, because the product documents them as unsupported: tables without a primary
 * key (source-connector.md: "A key for every published table"), REPLICA IDENTITY NOTHING and a
 * column named {@code _0_version} (source-connector.md: "stops the task"), NaN in numeric arrays
 * (type-mapping.md: "known limit"), infinite timestamps (no form in type-mapping.md), schemas other
 * than public, and names equal but for case (SQLite names are case-insensitive).
 */
public final class WorkloadGenerator extends GeneratorPart {
  public static final String PUBLICATION = "fuzz_pub";
  public static final String MARKER = "fuzz_marker";
  /**
   * Names a round may take ({@link #generateRound}): a round's names end in numbers from
   * {@code round * ROUND_NAMES + 1} on; with up to 7 digits the longest table name stays within
   * Postgres' 63 bytes.
   */
  private static final int ROUND_NAMES = 10_000;

  private final long seed;
  private final DmlStatements dml;
  private final DdlStatements ddl;
  private SchemaModel model = new SchemaModel();

  private WorkloadGenerator(long seed, Set<FuzzFeature> features) {
    super(new Draws(seed, features));
    this.seed = seed;
    this.dml = new DmlStatements(draws);
    this.ddl = new DdlStatements(draws, dml);
  }

  /** The workload of {@code seed}: setup, then about {@code transactions} transactions and other steps. */
  public static Workload generate(long seed, int transactions, Set<FuzzFeature> features) {
    return generateRound(seed, 0, transactions, features);
  }

  /**
   * Round {@code round} of a long workload in one database, for a soak: round 0 is
   * {@link #generate}'s workload; a later round's setup creates tables of its own, with names no
   * earlier round used (tables, constraints, indexes), and adds them to the publication round 0
   * created, which the pipeline is then already replicating: each round's setup is a backfill of
   * new tables. Its statements touch only its own tables. At most 999 rounds.
   */
  public static Workload generateRound(long seed, int round, int transactions, Set<FuzzFeature> features) {
    if (round < 0 || round > 999) {
      throw new IllegalArgumentException("round " + round + " is not in 0..999");
    }
    WorkloadGenerator g = new WorkloadGenerator(seed, Set.copyOf(features));
    g.draws.nextName = 1 + round * ROUND_NAMES;
    List<Action> setup = g.setup(round == 0);
    List<Action> actions = g.main(transactions);
    return new Workload(seed, g.draws.features, PUBLICATION, MARKER, List.copyOf(setup), List.copyOf(actions));
  }

  // ---------------------------------------------------------------- setup

  /** The first round creates the marker and the publication; a later one adds its tables to it. */
  private List<Action> setup(boolean first) {
    draws.out = new ArrayList<>();
    List<String> published = new ArrayList<>();
    if (first) {
      sql("CREATE TABLE " + MARKER + " (id int PRIMARY KEY, n bigint NOT NULL)");
      sql("INSERT INTO " + MARKER + " VALUES (1, 0)");
      published.add(MARKER);
    }
    int tables = 3;
    for (int i = 0; i < tables; i++) {
      // The first table has a column of every type, so every seed meets every type's edge values.
      Table t = ddl.createTable(model, i == 0 ? ddl.allTypes() : null);
      for (int r = 0, n = 3 + random.nextInt(8); r < n; r++) {
        sql(dml.insert(t));
      }
      if (i < 2 || !on(FuzzFeature.PUBLICATION_CHANGES)) {
        t.published = true;
        published.add(ident(t.name));
      }
    }
    sql((first ? "CREATE PUBLICATION " + PUBLICATION + " FOR TABLE " : "ALTER PUBLICATION " + PUBLICATION
        + " ADD TABLE ") + String.join(", ", published));
    return draws.out;
  }

  // ---------------------------------------------------------------- plan

  /** The kinds of step a workload plan holds. */
  enum Step {
    DML, CONCURRENT, TRUNCATE, CREATE_TABLE, DROP_TABLE, RENAME_TABLE, ADD_COLUMN, ADD_COLUMN_VOLATILE,
    ADD_COLUMN_ARRAY_DEFAULT, RENAME_COLUMN, DROP_COLUMN, RETYPE, CREATE_INDEX, DROP_INDEX, PRIMARY_KEY,
    PUBLICATION_ADD, PUBLICATION_DROP, RESTART, RESTART_IN_TRANSACTION
  }

  private List<Action> main(int transactions) {
    draws.out = new ArrayList<>();
    List<Step> plan = new ArrayList<>();
    addIf(plan, FuzzFeature.CONCURRENT_SESSIONS, Step.CONCURRENT, 4);
    addIf(plan, FuzzFeature.TRUNCATE, Step.TRUNCATE, 2);
    addIf(plan, FuzzFeature.CREATE_DROP_TABLE, Step.CREATE_TABLE, 2);
    addIf(plan, FuzzFeature.CREATE_DROP_TABLE, Step.DROP_TABLE, 1);
    addIf(plan, FuzzFeature.RENAME_TABLE, Step.RENAME_TABLE, 1);
    addIf(plan, FuzzFeature.ADD_COLUMN, Step.ADD_COLUMN, 3);
    addIf(plan, FuzzFeature.VOLATILE_DEFAULT, Step.ADD_COLUMN_VOLATILE, 2);
    addIf(plan, FuzzFeature.ARRAY_DEFAULT, Step.ADD_COLUMN_ARRAY_DEFAULT, 1);
    addIf(plan, FuzzFeature.RENAME_COLUMN, Step.RENAME_COLUMN, 2);
    addIf(plan, FuzzFeature.DROP_COLUMN, Step.DROP_COLUMN, 2);
    addIf(plan, FuzzFeature.RETYPE, Step.RETYPE, 3);
    addIf(plan, FuzzFeature.INDEXES, Step.CREATE_INDEX, 2);
    addIf(plan, FuzzFeature.INDEXES, Step.DROP_INDEX, 1);
    addIf(plan, FuzzFeature.PRIMARY_KEY_CHANGE, Step.PRIMARY_KEY, 2);
    addIf(plan, FuzzFeature.PUBLICATION_CHANGES, Step.PUBLICATION_ADD, 2);
    addIf(plan, FuzzFeature.PUBLICATION_CHANGES, Step.PUBLICATION_DROP, 1);
    addIf(plan, FuzzFeature.RESTARTS, Step.RESTART, 2);
    addIf(plan, FuzzFeature.RESTARTS, Step.RESTART_IN_TRANSACTION, 1);
    while (plan.size() < transactions) {
      plan.add(Step.DML);
    }
    Collections.shuffle(plan, random);
    for (int i = 0; i < plan.size(); i++) {
      Step step = plan.get(i);
      if (step == Step.DROP_INDEX && model.tables(false).stream().allMatch(t -> t.indexes.isEmpty())) {
        step = Step.CREATE_INDEX; // nothing to drop yet: create one now, drop one later
        plan.add(i + 1 + random.nextInt(plan.size() - i), Step.DROP_INDEX);
      }
      step(step);
      if (chance(15)) {
        draws.out.add(new Action.Pause(50 + random.nextInt(400)));
      }
    }
    return draws.out;
  }

  private void addIf(List<Step> plan, FuzzFeature feature, Step step, int times) {
    if (on(feature)) {
      for (int i = 0; i < times; i++) {
        plan.add(step);
      }
    }
  }

  private void step(Step step) {
    switch (step) {
      case DML -> dmlTransaction();
      case CONCURRENT -> concurrent();
      case TRUNCATE -> truncate();
      case RESTART -> draws.out.add(new Action.Restart(pick(Action.RestartKind.RESTARTS)));
      case RESTART_IN_TRANSACTION -> restartInTransaction();
      default -> ddlTransaction(step);
    }
  }

  // ---------------------------------------------------------------- transactions

  /** One transaction of 1–6 DML statements on session 0; may roll back, whole or to a savepoint. */
  private void dmlTransaction() {
    if (model.tables.isEmpty()) {
      return;
    }
    SchemaModel work = model.copy();
    sql("BEGIN");
    int n = 1 + random.nextInt(6);
    boolean savepoint = on(FuzzFeature.ROLLBACKS) && chance(15);
    int savepointAt = savepoint ? random.nextInt(n) : -1;
    for (int i = 0; i < n; i++) {
      if (i == savepointAt) {
        SchemaModel saved = work.copy();
        sql("SAVEPOINT sp");
        for (int k = 0, m = 1 + random.nextInt(3); k < m; k++) {
          dmlStatement(work);
        }
        sql("ROLLBACK TO SAVEPOINT sp");
        work = saved;
      }
      dmlStatement(work);
    }
    end(work);
  }

  /** COMMIT (the model adopts {@code work}) or, sometimes, ROLLBACK. */
  private void end(SchemaModel work) {
    if (on(FuzzFeature.ROLLBACKS) && chance(12)) {
      sql("ROLLBACK");
    } else {
      sql("COMMIT");
      model = work;
    }
  }

  private void dmlStatement(SchemaModel work) {
    List<Table> tables = work.tables(chance(80));
    if (tables.isEmpty()) {
      tables = work.tables(false);
    }
    String statement = dml.dml(pick(tables));
    if (statement != null) {
      sql(statement);
    }
  }

  /** A transaction that is open while part of the pipeline restarts. */
  private void restartInTransaction() {
    SchemaModel work = model.copy();
    sql("BEGIN");
    dmlStatement(work);
    draws.out.add(new Action.Restart(pick(Action.RestartKind.RESTARTS)));
    dmlStatement(work);
    sql("COMMIT");
    model = work;
  }

  /**
   * Two sessions, each in a transaction on its own table, statements interleaved; they end in a
   * random order, each committing or rolling back. Different tables and DML only: neither session
   * ever waits for the other's locks.
   */
  private void concurrent() {
    List<Table> tables = new ArrayList<>(model.tables(false));
    if (tables.size() < 2) {
      dmlTransaction();
      return;
    }
    Collections.shuffle(tables, random);
    Table[] work = {tables.get(0).copy(), tables.get(1).copy()};
    int[] left = {1 + random.nextInt(5), 1 + random.nextInt(5)};
    int first = random.nextInt(2);
    sql(first, "BEGIN");
    sql(1 - first, "BEGIN");
    while (left[0] + left[1] > 0) {
      int s = left[0] == 0 ? 1 : left[1] == 0 ? 0 : random.nextInt(2);
      String statement = dml.dml(work[s]);
      if (statement != null) {
        sql(s, statement);
      }
      left[s]--;
    }
    int firstEnd = random.nextInt(2);
    for (int s : new int[] {firstEnd, 1 - firstEnd}) {
      if (on(FuzzFeature.ROLLBACKS) && chance(15)) {
        sql(s, "ROLLBACK");
      } else {
        sql(s, "COMMIT");
        model.tables.put(work[s].name, work[s]);
      }
    }
  }

  private void truncate() {
    List<Table> tables = new ArrayList<>(model.tables(false));
    if (tables.isEmpty()) {
      return;
    }
    Collections.shuffle(tables, random);
    List<Table> chosen = tables.subList(0, Math.min(tables.size(), 1 + random.nextInt(2)));
    sql("TRUNCATE " + chosen.stream().map(t -> ident(t.name)).collect(Collectors.joining(", ")));
    chosen.forEach(t -> t.ids.clear());
  }

  /** A DDL step in its own transaction, with DML before and after it in the same one sometimes. */
  private void ddlTransaction(Step step) {
    SchemaModel work = model.copy();
    boolean withDml = on(FuzzFeature.DDL_WITH_DML) && chance(40);
    sql("BEGIN");
    if (withDml) {
      dmlStatement(work);
    }
    ddl.ddl(step, work);
    if (withDml) {
      dmlStatement(work);
    }
    end(work);
  }

  @Override
  public String toString() {
    return "WorkloadGenerator(seed " + seed + ")";
  }
}