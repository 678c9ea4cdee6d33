package io.pg2lite.testkit.fuzz;

import io.pg2lite.testkit.fuzz.SchemaModel.Column;
import io.pg2lite.testkit.fuzz.SchemaModel.Table;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.stream.Collectors;

/**
 * The DML statements of a workload (inserts, updates by id and by range, deletes, key changes,
 * upserts), each generated against a table of the model it will meet and updating the model's
 * key values, so that none fails (no duplicate key, no NULL into NOT NULL, no TOAST-sized value in
 * an index). Part of {@link WorkloadGenerator}; draws from the same {@link Draws}.
 */
final class DmlStatements extends GeneratorPart {
  DmlStatements(Draws draws) {
    super(draws);
  }

  /** One DML statement on {@code t}, updating the model's key values; null when none applies. */
  String dml(Table t) {
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

  String insert(Table t) {
    List<Column> cols = new ArrayList<>();
    for (Column c : t.nonKey()) {
      if (!on(FuzzFeature.DEFAULTS) || c.notNull && c.dflt == null || chance(70)) {
        cols.add(c);
      }
    }
    int rows = chance(20) ? 2 + random.nextInt(2) : 1;
    List<String> tuples = new ArrayList<>();
    for (int i = 0; i < rows; i++) {
      long id = draws.nextId++;
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
    if (c.type.toastable() && on(FuzzFeature.LARGE_VALUES) && chance(8) && !indexed(t, c)) {
      return literals.large();
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
    return chance(5) ? draws.nextId + 1_000_000_000L : pick(t.ids);
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
      long shift = 10_000_000L * draws.nextShift++;
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
    long fresh = draws.nextId++;
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
}
