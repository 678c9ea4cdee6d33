package io.pg2lite.testkit.fuzz;

import io.pg2lite.testkit.fuzz.SchemaModel.Column;
import io.pg2lite.testkit.fuzz.SchemaModel.Table;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashSet;
import java.util.List;
import java.util.Random;
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
public final class WorkloadGenerator {
  public static final String PUBLICATION = "fuzz_pub";
  public static final String MARKER = "fuzz_marker";

  private static final String[] TABLE_NAMES = {"t", "Mixed Case", "with space", "q\"uote", "semi;colon", "dot.ted",
      "été", "UPPER", "select"};
  private static final String[] COLUMN_NAMES = {"c", "Camel", "two words", "q\"col", "from", "ünï", "a.b", "DESC"};
  private static final String[] KEY_NAMES = {"id", "Id Key", "order"};
  private static final int MAX_COLUMNS = 10;

  private final long seed;
  private final Random random;
  private final Set<FuzzFeature> features;
  private final Literals literals;
  private SchemaModel model = new SchemaModel();
  private long nextId = 1;
  private int nextName = 1;
  private long nextShift = 1;
  private List<Action> out;

  private WorkloadGenerator(long seed, Set<FuzzFeature> features) {
    this.seed = seed;
    this.random = new Random(seed);
    this.features = features;
    this.literals = new Literals(random, features);
  }

  /** The workload of {@code seed}: setup, then about {@code transactions} transactions and other steps. */
  public static Workload generate(long seed, int transactions, Set<FuzzFeature> features) {
    WorkloadGenerator g = new WorkloadGenerator(seed, Set.copyOf(features));
    List<Action> setup = g.setup();
    List<Action> actions = g.main(transactions);
    return new Workload(seed, g.features, PUBLICATION, MARKER, List.copyOf(setup), List.copyOf(actions));
  }

  private boolean on(FuzzFeature f) {
    return features.contains(f);
  }

  private boolean chance(int percent) {
    return random.nextInt(100) < percent;
  }

  private <T> T pick(List<T> items) {
    return items.get(random.nextInt(items.size()));
  }

  static String ident(String name) {
    return '"' + name.replace("\"", "\"\"") + '"';
  }

  private String name(String[] bases) {
    String base = on(FuzzFeature.QUOTED_NAMES) ? bases[random.nextInt(bases.length)] : bases[0];
    return base + "_" + nextName++;
  }

  private void sql(String statement) {
    out.add(new Action.Sql(0, statement));
  }

  private void sql(int session, String statement) {
    out.add(new Action.Sql(session, statement));
  }

  // ---------------------------------------------------------------- setup

  private List<Action> setup() {
    out = new ArrayList<>();
    sql("CREATE TABLE " + MARKER + " (id int PRIMARY KEY, n bigint NOT NULL)");
    sql("INSERT INTO " + MARKER + " VALUES (1, 0)");
    List<String> published = new ArrayList<>();
    published.add(MARKER);
    int tables = 3;
    for (int i = 0; i < tables; i++) {
      // The first table has a column of every type, so every seed meets every type's edge values.
      Table t = createTable(model, i == 0 ? allTypes() : null);
      for (int r = 0, n = 3 + random.nextInt(8); r < n; r++) {
        sql(insert(t));
      }
      if (i < 2 || !on(FuzzFeature.PUBLICATION_CHANGES)) {
        t.published = true;
        published.add(ident(t.name));
      }
    }
    sql("CREATE PUBLICATION " + PUBLICATION + " FOR TABLE " + String.join(", ", published));
    return out;
  }

  // ---------------------------------------------------------------- plan

  private enum Step {
    DML, CONCURRENT, TRUNCATE, CREATE_TABLE, DROP_TABLE, RENAME_TABLE, ADD_COLUMN, ADD_COLUMN_VOLATILE,
    ADD_COLUMN_ARRAY_DEFAULT, RENAME_COLUMN, DROP_COLUMN, RETYPE, CREATE_INDEX, DROP_INDEX, PRIMARY_KEY,
    PUBLICATION_ADD, PUBLICATION_DROP, RESTART, RESTART_IN_TRANSACTION
  }

  private List<Action> main(int transactions) {
    out = new ArrayList<>();
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
        out.add(new Action.Pause(50 + random.nextInt(400)));
      }
    }
    return out;
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
      case RESTART -> out.add(new Action.Restart(pick(List.of(Action.RestartKind.values()))));
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
    String statement = dml(pick(tables));
    if (statement != null) {
      sql(statement);
    }
  }

  /** A transaction that is open while part of the pipeline restarts. */
  private void restartInTransaction() {
    SchemaModel work = model.copy();
    sql("BEGIN");
    dmlStatement(work);
    out.add(new Action.Restart(pick(List.of(Action.RestartKind.values()))));
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
      String statement = dml(work[s]);
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

  // ---------------------------------------------------------------- DML

  /** One DML statement on {@code t}, updating the model's key values; null when none applies. */
  private String dml(Table t) {
    int r = random.nextInt(100);
    if (r < 35 || t.ids.isEmpty()) {
      return insert(t);
    }
    if (r < 60) {
      return updateById(t);
    }
    if (r < 68) {
      return updateRange(t);
    }
    if (r < 80) {
      return delete(t);
    }
    if (r < 90 && on(FuzzFeature.KEY_CHANGES)) {
      return keyChange(t);
    }
    if (t.key.size() == 1) {
      return upsert(t);
    }
    return updateById(t);
  }

  private String insert(Table t) {
    List<Column> cols = new ArrayList<>();
    for (Column c : t.nonKey()) {
      if (!on(FuzzFeature.DEFAULTS) || c.notNull && c.dflt == null || chance(70)) {
        cols.add(c);
      }
    }
    int rows = chance(20) ? 2 + random.nextInt(2) : 1;
    List<String> tuples = new ArrayList<>();
    for (int i = 0; i < rows; i++) {
      long id = nextId++;
      t.ids.add(id);
      List<String> values = new ArrayList<>();
      values.add(Long.toString(id));
      if (t.key.size() > 1) {
        values.add(Integer.toString(random.nextInt(100)));
      }
      for (Column c : cols) {
        values.add(value(t, c, true));
      }
      tuples.add("(" + String.join(", ", values) + ")");
    }
    List<String> names = new ArrayList<>(t.key);
    cols.forEach(c -> names.add(c.name));
    return "INSERT INTO " + ident(t.name) + " (" + names.stream().map(WorkloadGenerator::ident)
        .collect(Collectors.joining(", ")) + ") VALUES " + String.join(", ", tuples);
  }

  /** A value for column {@code c}: NULL sometimes (also where a DEFAULT exists), TOAST-sized text sometimes. */
  private String value(Table t, Column c, boolean allowDefaultKeyword) {
    if (!c.notNull && on(FuzzFeature.NULLS) && chance(c.dflt != null ? 25 : 12)) {
      return "NULL";
    }
    if (allowDefaultKeyword && on(FuzzFeature.DEFAULTS) && c.dflt != null && chance(10)) {
      return "DEFAULT";
    }
    if (c.type.toastable() && on(FuzzFeature.TOAST) && chance(15) && !indexed(t, c)) {
      return literals.toasted();
    }
    return literals.value(c.type);
  }

  /** Indexed columns never get TOAST-sized values: a btree entry must fit in a page. */
  private static boolean indexed(Table t, Column c) {
    return t.indexes.values().stream().anyMatch(cols -> cols.contains(c.name));
  }

  private String assignments(Table t) {
    List<Column> candidates = new ArrayList<>(t.nonKey());
    if (candidates.isEmpty()) {
      return null;
    }
    Collections.shuffle(candidates, random);
    List<Column> set = candidates.subList(0, 1 + random.nextInt(Math.min(3, candidates.size())));
    return set.stream().map(c -> ident(c.name) + " = " + value(t, c, true)).collect(Collectors.joining(", "));
  }

  private long existingId(Table t) {
    return chance(5) ? nextId + 1_000_000_000L : pick(t.ids);
  }

  private String updateById(Table t) {
    String set = assignments(t);
    if (set == null) {
      return insert(t);
    }
    return "UPDATE " + ident(t.name) + " SET " + set + " WHERE " + ident(t.idColumn()) + " = " + existingId(t);
  }

  private String updateRange(Table t) {
    String set = assignments(t);
    if (set == null) {
      return insert(t);
    }
    long a = pick(t.ids);
    long b = pick(t.ids);
    return "UPDATE " + ident(t.name) + " SET " + set + " WHERE " + ident(t.idColumn()) + " BETWEEN "
        + Math.min(a, b) + " AND " + Math.max(a, b);
  }

  private String delete(Table t) {
    if (chance(70)) {
      long id = existingId(t);
      t.ids.remove(Long.valueOf(id));
      return "DELETE FROM " + ident(t.name) + " WHERE " + ident(t.idColumn()) + " = " + id;
    }
    int modulus = 2 + random.nextInt(4);
    int rest = random.nextInt(modulus);
    t.ids.removeIf(id -> id % modulus == rest);
    return "DELETE FROM " + ident(t.name) + " WHERE " + ident(t.idColumn()) + " % " + modulus + " = " + rest;
  }

  /** An UPDATE of key columns: one row to a fresh id, a range shifted to unused ids, or the second key column. */
  private String keyChange(Table t) {
    String id = ident(t.idColumn());
    int r = random.nextInt(3);
    if (r == 0 && t.key.size() > 1) {
      String k = ident(t.key.get(1)); // k / 2 + 1 never overflows, whatever value k holds
      return "UPDATE " + ident(t.name) + " SET " + k + " = " + k + " / 2 + 1 WHERE " + id + " = " + existingId(t);
    }
    if (r == 1) {
      long a = pick(t.ids);
      long b = pick(t.ids);
      long lo = Math.min(a, b);
      long hi = Math.max(a, b);
      long shift = 10_000_000L * nextShift++;
      Set<Long> before = new HashSet<>(t.ids);
      List<Long> moved = t.ids.stream().filter(x -> x >= lo && x <= hi).toList();
      if (moved.stream().anyMatch(x -> before.contains(x + shift))) {
        return null; // would collide with an existing key mid-statement
      }
      t.ids.replaceAll(x -> x >= lo && x <= hi ? x + shift : x);
      return "UPDATE " + ident(t.name) + " SET " + id + " = " + id + " + " + shift + " WHERE " + id + " BETWEEN " + lo
          + " AND " + hi;
    }
    long old = pick(t.ids);
    long fresh = nextId++;
    t.ids.replaceAll(x -> x == old ? fresh : x);
    String set = chance(50) ? assignments(t) : null;
    return "UPDATE " + ident(t.name) + " SET " + id + " = " + fresh + (set == null ? "" : ", " + set) + " WHERE " + id
        + " = " + old;
  }

  /** INSERT ... ON CONFLICT DO UPDATE on an existing key: an update through the insert path. */
  private String upsert(Table t) {
    List<Column> cols = t.nonKey();
    if (cols.isEmpty()) {
      return insert(t);
    }
    Column c = pick(cols);
    long id = pick(t.ids);
    // The insert must be valid on its own before it conflicts: NOT NULL columns without default get values.
    List<Column> insert = new ArrayList<>();
    insert.add(c);
    cols.stream().filter(x -> x != c && x.notNull && x.dflt == null).forEach(insert::add);
    return "INSERT INTO " + ident(t.name) + " (" + ident(t.idColumn()) + ", "
        + insert.stream().map(x -> ident(x.name)).collect(Collectors.joining(", ")) + ") VALUES (" + id + ", "
        + insert.stream().map(x -> value(t, x, false)).collect(Collectors.joining(", ")) + ") ON CONFLICT ("
        + ident(t.idColumn()) + ") DO UPDATE SET " + ident(c.name) + " = EXCLUDED." + ident(c.name);
  }

  // ---------------------------------------------------------------- DDL

  /** A DDL step in its own transaction, with DML before and after it in the same one sometimes. */
  private void ddlTransaction(Step step) {
    SchemaModel work = model.copy();
    boolean withDml = on(FuzzFeature.DDL_WITH_DML) && chance(40);
    sql("BEGIN");
    if (withDml) {
      dmlStatement(work);
    }
    ddl(step, work);
    if (withDml) {
      dmlStatement(work);
    }
    end(work);
  }

  private void ddl(Step step, SchemaModel m) {
    List<Table> all = m.tables(false);
    switch (step) {
      case CREATE_TABLE -> {
        Table t = createTable(m);
        for (int r = 0, n = random.nextInt(6); r < n; r++) {
          sql(insert(t));
        }
        if (!on(FuzzFeature.PUBLICATION_CHANGES) || chance(50)) {
          sql("ALTER PUBLICATION " + PUBLICATION + " ADD TABLE " + ident(t.name));
          t.published = true;
        }
      }
      case DROP_TABLE -> {
        if (all.size() > 2) {
          Table t = pick(all);
          sql("DROP TABLE " + ident(t.name));
          m.tables.remove(t.name);
        }
      }
      case RENAME_TABLE -> {
        Table t = pick(all);
        String renamed = name(TABLE_NAMES);
        sql("ALTER TABLE " + ident(t.name) + " RENAME TO " + ident(renamed));
        m.tables.remove(t.name);
        t.name = renamed;
        m.tables.put(renamed, t);
      }
      case ADD_COLUMN -> addColumn(pick(all), chance(50) ? "constant" : "none");
      case ADD_COLUMN_VOLATILE -> addColumn(pickPublishedWithRows(m), "volatile");
      case ADD_COLUMN_ARRAY_DEFAULT -> addColumn(pickPublishedWithRows(m), "array");
      case RENAME_COLUMN -> {
        Table t = pick(all);
        List<Column> renamable = on(FuzzFeature.KEY_COLUMN_RENAME) ? t.columns : t.nonKey();
        if (renamable.isEmpty()) {
          return;
        }
        Column c = pick(renamable);
        String renamed = name(t.key.contains(c.name) ? KEY_NAMES : COLUMN_NAMES);
        sql("ALTER TABLE " + ident(t.name) + " RENAME COLUMN " + ident(c.name) + " TO " + ident(renamed));
        t.key.replaceAll(k -> k.equals(c.name) ? renamed : k);
        t.indexes.values().forEach(cols -> cols.replaceAll(k -> k.equals(c.name) ? renamed : k));
        c.name = renamed;
      }
      case DROP_COLUMN -> {
        Table t = pick(all);
        if (!t.nonKey().isEmpty()) {
          Column c = pick(t.nonKey());
          sql("ALTER TABLE " + ident(t.name) + " DROP COLUMN " + ident(c.name));
          t.columns.remove(c);
          t.indexes.values().removeIf(cols -> cols.contains(c.name));
        }
      }
      case RETYPE -> retype(pick(all));
      case CREATE_INDEX -> createIndex(pick(all));
      case DROP_INDEX -> {
        List<Table> withIndexes = all.stream().filter(t -> !t.indexes.isEmpty()).toList();
        if (!withIndexes.isEmpty()) {
          Table t = pick(withIndexes);
          String index = pick(new ArrayList<>(t.indexes.keySet()));
          sql("DROP INDEX " + ident(index));
          t.indexes.remove(index);
        }
      }
      case PRIMARY_KEY -> primaryKey(pick(all));
      case PUBLICATION_ADD -> {
        List<Table> unpublished = all.stream().filter(t -> !t.published).toList();
        if (!unpublished.isEmpty()) {
          Table t = pick(unpublished);
          sql("ALTER PUBLICATION " + PUBLICATION + " ADD TABLE " + ident(t.name));
          t.published = true;
        }
      }
      case PUBLICATION_DROP -> {
        List<Table> published = m.tables(true);
        if (published.size() > 1) {
          Table t = pick(published);
          sql("ALTER PUBLICATION " + PUBLICATION + " DROP TABLE " + ident(t.name));
          t.published = false;
        }
      }
      default -> throw new IllegalStateException("not DDL: " + step);
    }
  }

  private Table pickPublishedWithRows(SchemaModel m) {
    List<Table> candidates = m.tables(true).stream().filter(t -> !t.ids.isEmpty()).toList();
    return candidates.isEmpty() ? pick(m.tables(false)) : pick(candidates);
  }

  private List<FuzzType> allTypes() {
    List<FuzzType> types = usableTypes();
    Collections.shuffle(types, random);
    return types;
  }

  private Table createTable(SchemaModel m) {
    return createTable(m, null);
  }

  /**
   * CREATE TABLE with a named primary key and columns of the given types (2–5 random ones when
   * null), some with defaults.
   */
  private Table createTable(SchemaModel m, List<FuzzType> types) {
    Table t = new Table(name(TABLE_NAMES));
    t.key.add(name(KEY_NAMES));
    t.keyConstraint = "pk_" + nextName++;
    t.columns.add(new Column(t.key.get(0), FuzzType.INT8, null, true));
    List<String> defs = new ArrayList<>();
    defs.add(ident(t.key.get(0)) + " int8");
    for (int i = 0, n = types != null ? types.size() : 2 + random.nextInt(4); i < n; i++) {
      FuzzType type = types != null ? types.get(i) : randomType();
      String dflt = null;
      if (on(FuzzFeature.DEFAULTS) && chance(35)) {
        dflt = Literals.hasVolatileDefault(type) && chance(40) ? Literals.volatileDefault(type, random)
            : literals.value(type);
      }
      Column c = new Column(name(COLUMN_NAMES), type, dflt, false);
      t.columns.add(c);
      defs.add(ident(c.name) + " " + type.sql + (dflt == null ? "" : " DEFAULT " + dflt));
    }
    defs.add("CONSTRAINT " + ident(t.keyConstraint) + " PRIMARY KEY (" + ident(t.key.get(0)) + ")");
    sql("CREATE TABLE " + ident(t.name) + " (" + String.join(", ", defs) + ")");
    m.tables.put(t.name, t);
    return t;
  }

  /** The types the enabled features allow. */
  private List<FuzzType> usableTypes() {
    List<FuzzType> types = new ArrayList<>(List.of(FuzzType.values()));
    if (!on(FuzzFeature.ARRAYS)) {
      types.removeIf(FuzzType::isArray);
    }
    if (!on(FuzzFeature.INTERVALS)) {
      types.remove(FuzzType.INTERVAL);
    }
    return types;
  }

  private FuzzType randomType() {
    List<FuzzType> types = usableTypes();
    if (on(FuzzFeature.TOAST)) {
      types.add(FuzzType.TEXT); // more text columns, more TOAST
    }
    return pick(types);
  }

  /** ADD COLUMN: {@code kind} none, constant, volatile (backfilled) or array (a constant array default). */
  private void addColumn(Table t, String kind) {
    if (t.columns.size() >= MAX_COLUMNS) {
      return;
    }
    FuzzType type;
    String dflt = null;
    switch (kind) {
      case "volatile" -> {
        type = pick(List.of(FuzzType.TIMESTAMPTZ, FuzzType.FLOAT8, FuzzType.INT4, FuzzType.TEXT, FuzzType.UUID));
        dflt = Literals.volatileDefault(type, random);
      }
      case "array" -> {
        type = pick(List.of(FuzzType.INT4_ARRAY, FuzzType.TEXT_ARRAY));
        dflt = literals.value(type);
      }
      case "constant" -> {
        type = randomType();
        dflt = literals.value(type);
      }
      default -> type = randomType();
    }
    boolean notNull = dflt != null && !"volatile".equals(kind) && chance(20);
    Column c = new Column(name(COLUMN_NAMES), type, dflt, notNull);
    sql("ALTER TABLE " + ident(t.name) + " ADD COLUMN " + ident(c.name) + " " + type.sql
        + (dflt == null ? "" : " DEFAULT " + dflt) + (notNull ? " NOT NULL" : ""));
    t.columns.add(c);
  }

  /** ALTER COLUMN TYPE with a USING cast that succeeds for every value; the default is dropped with it. */
  private void retype(Table t) {
    List<Column> candidates = t.nonKey().stream().filter(c -> !c.type.retypeTargets().isEmpty()).toList();
    if (candidates.isEmpty()) {
      return;
    }
    Column c = pick(candidates);
    FuzzType target = pick(c.type.retypeTargets());
    String col = ident(c.name);
    String using = col + "::" + target.sql;
    if (target == FuzzType.TIMESTAMP && (c.type == FuzzType.DATE || c.type == FuzzType.TIMESTAMPTZ)) {
      // A timestamp past 294247 is a known limit (docs/type-mapping.md): a date or timestamptz
      // in year 294276 is clamped on the way, the way the workload keeps its own timestamps below it.
      String limit = c.type == FuzzType.DATE ? "'294247-01-01'::date" : "'294247-01-01 00:00:00+00'::timestamptz";
      using = "least(" + col + ", " + limit + ")::timestamp";
    }
    sql("ALTER TABLE " + ident(t.name) + (c.dflt == null ? "" : " ALTER COLUMN " + col + " DROP DEFAULT,")
        + " ALTER COLUMN " + col + " TYPE " + target.sql + " USING " + using);
    c.type = target;
    c.dflt = null;
  }

  /** CREATE INDEX on 1–2 columns (never json, which has no btree operators; never TOAST-able text). */
  private void createIndex(Table t) {
    List<Column> candidates = t.columns.stream()
        .filter(c -> c.type != FuzzType.JSON && c.type != FuzzType.TEXT && !t.key.contains(c.name)).toList();
    if (candidates.isEmpty()) {
      return;
    }
    List<Column> cols = new ArrayList<>(candidates);
    Collections.shuffle(cols, random);
    cols = cols.subList(0, Math.min(cols.size(), 1 + random.nextInt(2)));
    boolean unique = chance(30); // unique with the key's first column in front, so it never rejects a row
    List<String> names = new ArrayList<>();
    if (unique) {
      names.add(t.idColumn());
    }
    cols.forEach(c -> names.add(c.name));
    String index = on(FuzzFeature.QUOTED_NAMES) && chance(50) ? "Ix \"q" + nextName++ : "ix_" + nextName++;
    sql("CREATE " + (unique ? "UNIQUE " : "") + "INDEX " + ident(index) + " ON " + ident(t.name) + " ("
        + names.stream().map(n -> ident(n) + (chance(30) ? " DESC" : "")).collect(Collectors.joining(", ")) + ")");
    t.indexes.put(index, names);
  }

  /**
   * Replaces the primary key: (id) becomes (id, k) with k an int4 NOT NULL column (added with a
   * default when the table has none, by the same ALTER TABLE or by one before it), and (id, k)
   * becomes (id) again. Both keys are unique for
   * any rows, because id alone is.
   */
  private void primaryKey(Table t) {
    String table = ident(t.name);
    String newConstraint = "pk_" + nextName++;
    if (t.key.size() == 1) {
      Column k = t.nonKey().stream().filter(c -> c.notNull && c.type == FuzzType.INT4).findFirst().orElse(null);
      String add = "";
      if (k == null) {
        k = new Column(name(COLUMN_NAMES), FuzzType.INT4, "0", true);
        String column = " ADD COLUMN " + ident(k.name) + " int4 NOT NULL DEFAULT 0";
        if (chance(50)) {
          add = column + ","; // the new key column added by the same statement
        } else {
          sql("ALTER TABLE " + table + column);
        }
        t.columns.add(k);
      }
      sql("ALTER TABLE " + table + add + " DROP CONSTRAINT " + ident(t.keyConstraint) + ", ADD CONSTRAINT "
          + ident(newConstraint) + " PRIMARY KEY (" + ident(t.idColumn()) + ", " + ident(k.name) + ")");
      t.key.add(k.name);
    } else {
      sql("ALTER TABLE " + table + " DROP CONSTRAINT " + ident(t.keyConstraint) + ", ADD CONSTRAINT "
          + ident(newConstraint) + " PRIMARY KEY (" + ident(t.idColumn()) + ")");
      t.key = new ArrayList<>(List.of(t.idColumn()));
    }
    t.keyConstraint = newConstraint;
  }

  @Override
  public String toString() {
    return "WorkloadGenerator(seed " + seed + ")";
  }
}
