package io.pg2lite.testkit.fuzz;

import io.pg2lite.testkit.fuzz.SchemaModel.Column;
import io.pg2lite.testkit.fuzz.SchemaModel.Table;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.stream.Collectors;

/**
 * The DDL steps of a workload (tables created, dropped and renamed; columns added with defaults,
 * renamed, dropped and retyped; indexes; primary-key changes; publication membership), each
 * generated against the model it will meet and applied to it. Part of {@link WorkloadGenerator};
 * draws from the same {@link Draws}, and writes rows through {@link DmlStatements}.
 */
final class DdlStatements extends GeneratorPart {
  /** Odd names; the last is 55 bytes, so with its number (up to 7 characters) it reaches Postgres' 63-byte limit. */
  private static final String[] TABLE_NAMES = {"t", "Mixed Case", "with space", "q\"uote", "semi;colon", "dot.ted",
      "été", "UPPER", "select", "long name near the 63-byte limit of Postgres: ünïcød"};
  private static final String[] COLUMN_NAMES = {"c", "Camel", "two words", "q\"col", "from", "ünï", "a.b", "DESC"};
  private static final String[] KEY_NAMES = {"id", "Id Key", "order"};
  private static final int MAX_COLUMNS = 10;
  private final DmlStatements dml;

  DdlStatements(Draws draws, DmlStatements dml) {
    super(draws);
    this.dml = dml;
  }

  /** The DDL of {@code step} on a table of {@code m} (the transaction's model), updating it. */
  void ddl(WorkloadGenerator.Step step, SchemaModel m) {
    List<Table> all = m.tables(false);
    switch (step) {
      case CREATE_TABLE -> {
        Table t = createTable(m);
        for (int r = 0, n = random.nextInt(6); r < n; r++) {
          sql(dml.insert(t));
        }
        if (!on(FuzzFeature.PUBLICATION_CHANGES) || chance(50)) {
          sql("ALTER PUBLICATION " + WorkloadGenerator.PUBLICATION + " ADD TABLE " + ident(t.name));
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
          sql("ALTER PUBLICATION " + WorkloadGenerator.PUBLICATION + " ADD TABLE " + ident(t.name));
          t.published = true;
        }
      }
      case PUBLICATION_DROP -> {
        List<Table> published = m.tables(true);
        if (published.size() > 1) {
          Table t = pick(published);
          sql("ALTER PUBLICATION " + WorkloadGenerator.PUBLICATION + " DROP TABLE " + ident(t.name));
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

  /** Every usable type, in a random order: a table of all of them meets every type's edge values. */
  List<FuzzType> allTypes() {
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
  Table createTable(SchemaModel m, List<FuzzType> types) {
    Table t = new Table(name(TABLE_NAMES));
    t.key.add(name(KEY_NAMES));
    t.keyConstraint = "pk_" + draws.nextName++;
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
    if (!on(FuzzFeature.POSTGRES_TEXT_TYPES)) {
      types.removeIf(FuzzType::isPostgresText);
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
    sql("ALTER TABLE " + ident(t.name) + (c.dflt == null ? "" : " ALTER COLUMN " + col + " DROP DEFAULT,")
        + " ALTER COLUMN " + col + " TYPE " + target.sql + " USING " + using);
    c.type = target;
    c.dflt = null;
  }

  /** CREATE INDEX on 1–2 columns (never json or point, which have no btree operators; never TOAST-able text). */
  private void createIndex(Table t) {
    List<Column> candidates = t.columns.stream()
        .filter(c -> c.type.indexable() && c.type != FuzzType.TEXT && !t.key.contains(c.name)).toList();
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
    String index = on(FuzzFeature.QUOTED_NAMES) && chance(50) ? "Ix \"q" + draws.nextName++ : "ix_" + draws.nextName++;
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
    String newConstraint = "pk_" + draws.nextName++;
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
}
