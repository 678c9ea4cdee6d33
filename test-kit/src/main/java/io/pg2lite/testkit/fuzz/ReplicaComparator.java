package io.pg2lite.testkit.fuzz;

import io.pg2lite.protocol.schema.ReplicaNames;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

/**
 * Compares every table of a publication with the replica table of the same name (a table of a
 * schema other than public is {@code schema.table} in the replica), cell by cell.
 *
 * <p>Call it only when both sides are at the same point of the log: Postgres quiet (no
 * transaction after the last one the replica applied) and the replica with no column still being
 * backfilled. Then the replica must hold exactly what Postgres holds:
 * <ul>
 *   <li>the replica's tables (besides pg2lite's own {@code _pg2lite.*}) are exactly the published
 *       tables: a table dropped or removed from the publication is gone;</li>
 *   <li>each table has the same columns by name (order may differ: a retyped column moves to the
 *       end), besides the replica's {@code _0_version};</li>
 *   <li>the same rows, matched by primary key, with every cell equal to what
 *       docs/type-mapping.md says the replica stores for the Postgres value ({@link ExpectedCell}).</li>
 * </ul>
 */
public final class ReplicaComparator {
  /** The replica's own tables, and its per-row version column. */
  private static final String INTERNAL_PREFIX = ReplicaNames.INTERNAL_TABLE_PREFIX;
  private static final String ROW_VERSION = ReplicaNames.ROW_VERSION_COLUMN;

  private final int maxDifferences;

  public ReplicaComparator(int maxDifferences) {
    this.maxDifferences = maxDifferences;
  }

  /** One difference, for humans: where and what. */
  public record Difference(String table, String key, String column, String postgres, String replica) {
    @Override
    public String toString() {
      return "table " + WorkloadGenerator.ident(table) + (key == null ? "" : " key " + key)
          + (column == null ? "" : " column " + WorkloadGenerator.ident(column)) + ": postgres " + postgres
          + ", replica " + replica;
    }
  }

  /** The outcome: the first differences (at most the configured number) and how many there were. */
  public record Result(List<Difference> differences, int total, int tables, long rows) {
    public boolean same() {
      return total == 0;
    }
  }

  /**
   * Compares the tables of {@code publication} in {@code pg} with {@code replica}. Sets the
   * Postgres session's TimeZone, DateStyle, IntervalStyle and extra_float_digits for the values'
   * text forms.
   */
  public Result compare(Connection pg, String publication, Connection replica) throws SQLException {
    try (Statement s = pg.createStatement()) {
      s.execute("SET TimeZone = 'UTC'");
      s.execute("SET DateStyle = 'ISO, YMD'");
      s.execute("SET IntervalStyle = 'iso_8601'");
      s.execute("SET extra_float_digits = 1");
    }
    Collector out = new Collector(maxDifferences);
    // Replica name (a table of another schema than public is "schema.table") to the Postgres name.
    Map<String, String> published = new java.util.TreeMap<>();
    try (PreparedStatement ps = pg.prepareStatement(
        "SELECT schemaname, tablename FROM pg_publication_tables WHERE pubname = ?")) {
      ps.setString(1, publication);
      try (ResultSet rs = ps.executeQuery()) {
        while (rs.next()) {
          published.put(ReplicaNames.table(new io.pg2lite.protocol.schema.QualifiedName(rs.getString(1),
              rs.getString(2))), WorkloadGenerator.ident(rs.getString(1)) + "." + WorkloadGenerator.ident(rs.getString(2)));
        }
      }
    }
    Set<String> replicated = new TreeSet<>();
    try (Statement s = replica.createStatement(); ResultSet rs = s.executeQuery(
        "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite%'")) {
      while (rs.next()) {
        if (!rs.getString(1).startsWith(INTERNAL_PREFIX)) {
          replicated.add(rs.getString(1));
        }
      }
    }
    for (String t : replicated) {
      if (!published.containsKey(t)) {
        out.add(new Difference(t, null, null, "not published", "has the table"));
      }
    }
    long rows = 0;
    for (Map.Entry<String, String> t : published.entrySet()) {
      if (!replicated.contains(t.getKey())) {
        out.add(new Difference(t.getKey(), null, null, "published", "has no such table"));
        continue;
      }
      rows += compareTable(pg, publication, replica, t.getKey(), t.getValue(), out);
    }
    return new Result(out.list, out.total, published.size(), rows);
  }

  /** Accumulates differences, keeping the first {@code max}. */
  private static final class Collector {
    final int max;
    final List<Difference> list = new ArrayList<>();
    int total;

    Collector(int max) {
      this.max = max;
    }

    void add(Difference d) {
      total++;
      if (list.size() < max) {
        list.add(d);
      }
    }
  }

  private long compareTable(Connection pg, String publication, Connection replica, String table, String pgTable,
      Collector out) throws SQLException {
    Map<String, ExpectedCell.Kind> pgColumns = postgresColumns(pg, publication, pgTable);
    List<String> key = primaryKey(pg, pgTable);
    Set<String> liteColumns = replicaColumns(replica, table);
    List<String> common = new ArrayList<>();
    for (String c : pgColumns.keySet()) {
      if (liteColumns.contains(c)) {
        common.add(c);
      } else {
        out.add(new Difference(table, null, c, "has the column", "has no such column"));
      }
    }
    for (String c : liteColumns) {
      if (!pgColumns.containsKey(c)) {
        out.add(new Difference(table, null, c, "has no such column", "has the column"));
      }
    }
    if (key.isEmpty()) {
      out.add(new Difference(table, null, null, "has no primary key or replica identity index", "(rows not compared)"));
      return 0;
    }
    if (!liteColumns.containsAll(key)) {
      // Rows cannot be matched; and SQLite would read a missing "column" as a string literal.
      return 0;
    }
    List<String> selected = new ArrayList<>(key);
    common.stream().filter(c -> !key.contains(c)).forEach(selected::add);

    StringBuilder pgSql = new StringBuilder("SELECT ");
    StringBuilder liteSql = new StringBuilder("SELECT ");
    for (int i = 0; i < selected.size(); i++) {
      String q = WorkloadGenerator.ident(selected.get(i));
      pgSql.append(i == 0 ? "" : ", ").append(ExpectedCell.postgresExpression(pgColumns.get(selected.get(i)), q));
      liteSql.append(i == 0 ? "" : ", ").append("typeof(").append(q).append("), ").append(q);
    }
    pgSql.append(" FROM ").append(pgTable);
    liteSql.append(" FROM ").append(WorkloadGenerator.ident(table));

    Map<String, List<ExpectedCell>> expected = new LinkedHashMap<>();
    try (Statement s = pg.createStatement(); ResultSet rs = s.executeQuery(pgSql.toString())) {
      while (rs.next()) {
        List<ExpectedCell> row = new ArrayList<>(selected.size());
        for (int i = 0; i < selected.size(); i++) {
          row.add(ExpectedCell.fromPostgres(pgColumns.get(selected.get(i)), rs.getString(i + 1)));
        }
        expected.put(keyText(key, row), row);
      }
    }
    Map<String, List<ExpectedCell>> actual = new LinkedHashMap<>();
    try (Statement s = replica.createStatement(); ResultSet rs = s.executeQuery(liteSql.toString())) {
      while (rs.next()) {
        List<ExpectedCell> row = new ArrayList<>(selected.size());
        for (int i = 0; i < selected.size(); i++) {
          row.add(ExpectedCell.fromReplica(pgColumns.get(selected.get(i)), rs, 2 * i + 1));
        }
        String k = keyText(key, row);
        if (actual.put(k, row) != null) {
          out.add(new Difference(table, k, null, "one row", "several rows with this key"));
        }
      }
    }
    for (Map.Entry<String, List<ExpectedCell>> e : expected.entrySet()) {
      List<ExpectedCell> lite = actual.remove(e.getKey());
      if (lite == null) {
        out.add(new Difference(table, e.getKey(), null, "has the row", "has no such row"));
        continue;
      }
      for (int i = key.size(); i < selected.size(); i++) {
        if (!e.getValue().get(i).equals(lite.get(i))) {
          out.add(new Difference(table, e.getKey(), selected.get(i), e.getValue().get(i).toString(),
              lite.get(i).toString()));
        }
      }
    }
    for (String k : actual.keySet()) {
      out.add(new Difference(table, k, null, "has no such row", "has the row"));
    }
    return expected.size();
  }

  private static String keyText(List<String> key, List<ExpectedCell> row) {
    StringBuilder sb = new StringBuilder("(");
    for (int i = 0; i < key.size(); i++) {
      sb.append(i == 0 ? "" : ", ").append(key.get(i)).append('=').append(row.get(i).text());
    }
    return sb.append(')').toString();
  }

  /**
   * The columns the replica must have: a domain compared as its base type; a generated column
   * only where pgoutput sends it (a STORED one, Postgres 18's publish_generated_columns = stored),
   * else the replica leaves it out (docs/type-mapping.md).
   */
  private static Map<String, ExpectedCell.Kind> postgresColumns(Connection pg, String publication, String pgTable)
      throws SQLException {
    Map<String, ExpectedCell.Kind> out = new LinkedHashMap<>();
    try (PreparedStatement ps = pg.prepareStatement("SELECT a.attname, t.typname, t.typcategory, e.typname, t.typtype,"
        + " e.typtype"
        + " FROM pg_attribute a JOIN pg_type d ON d.oid = a.atttypid"
        + " JOIN pg_type t ON t.oid = CASE WHEN d.typtype = 'd' THEN d.typbasetype ELSE d.oid END"
        + " LEFT JOIN pg_type e ON e.oid = t.typelem"
        + " WHERE a.attrelid = ?::regclass AND a.attnum > 0 AND NOT a.attisdropped"
        + " AND (a.attgenerated = '' OR a.attgenerated = 's' AND (SELECT to_jsonb(p) ->> 'pubgencols'"
        + " FROM pg_publication p WHERE p.pubname = ?) = 's') ORDER BY a.attnum")) {
      ps.setString(1, pgTable);
      ps.setString(2, publication);
      try (ResultSet rs = ps.executeQuery()) {
        while (rs.next()) {
          boolean array = "A".equals(rs.getString(3));
          out.put(rs.getString(1), ExpectedCell.Kind.of(array ? rs.getString(4) : rs.getString(2),
              array ? rs.getString(6) : rs.getString(5), array));
        }
      }
    }
    return out;
  }

  /** The primary key's columns; for a table without one, its replica identity index's (the row key upstream). */
  private static List<String> primaryKey(Connection pg, String pgTable) throws SQLException {
    List<String> out = new ArrayList<>();
    try (PreparedStatement ps = pg.prepareStatement("SELECT a.attname FROM pg_index i"
        + " JOIN pg_attribute a ON a.attrelid = i.indrelid AND a.attnum = ANY (i.indkey)"
        + " WHERE i.indrelid = ?::regclass AND i.indexrelid = (SELECT j.indexrelid FROM pg_index j"
        + " WHERE j.indrelid = i.indrelid AND (j.indisprimary OR j.indisreplident) ORDER BY j.indisprimary DESC LIMIT 1)"
        + " ORDER BY array_position(i.indkey::int2[], a.attnum)")) {
      ps.setString(1, pgTable);
      try (ResultSet rs = ps.executeQuery()) {
        while (rs.next()) {
          out.add(rs.getString(1));
        }
      }
    }
    return out;
  }

  private static Set<String> replicaColumns(Connection replica, String table) throws SQLException {
    Set<String> out = new LinkedHashSet<>();
    try (PreparedStatement ps = replica.prepareStatement("SELECT name FROM pragma_table_info(?)")) {
      ps.setString(1, table);
      try (ResultSet rs = ps.executeQuery()) {
        while (rs.next()) {
          if (!ROW_VERSION.equals(rs.getString(1))) {
            out.add(rs.getString(1));
          }
        }
      }
    }
    return out;
  }
}
