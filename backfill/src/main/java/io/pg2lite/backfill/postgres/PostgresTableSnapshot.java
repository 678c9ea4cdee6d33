package io.pg2lite.backfill.postgres;

import io.pg2lite.backfill.state.BackfillRequest;
import io.pg2lite.backfill.verify.TableDigests;
import io.pg2lite.backfill.verify.TableSnapshot;
import io.pg2lite.backfill.verify.VerifyTable;
import io.pg2lite.protocol.message.Verify;
import io.pg2lite.protocol.value.Value;
import io.pg2lite.protocol.verify.Buckets;
import io.pg2lite.protocol.watermark.Watermark;
import java.sql.Array;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.LongConsumer;

/**
 * One table of a verification in its snapshot: the scan reads it with the backfill copy's reader
 * (same values, same publication row filter), and the touched keys are looked up by their typed
 * values, through the key's index, a batch at a time.
 */
final class PostgresTableSnapshot implements TableSnapshot {
  /** Keys per lookup statement. */
  static final int LOOKUP_BATCH = 1_000;
  /** Rows per read of the scan. */
  private static final int SCAN_BATCH = 4_096;

  private final SharedSnapshot snapshot;
  private final VerifyTable table;
  private final BackfillRequest request;
  private final Map<String, ColumnType> types;
  private final int fetchRows;
  private List<String> layout;
  private Map<String, String> keyTypes;

  PostgresTableSnapshot(SharedSnapshot snapshot, VerifyTable table, BackfillRequest request,
      Map<String, ColumnType> types, int fetchRows) {
    this.snapshot = snapshot;
    this.table = table;
    this.request = request;
    this.types = types;
    this.fetchRows = fetchRows;
  }

  @Override
  public Watermark watermark() {
    return snapshot.watermark();
  }

  private String from() {
    return " FROM " + PostgresTableCopy.quote(table.name().schema()) + "." + PostgresTableCopy.quote(table.name().name());
  }

  /** The publication's row filter and the key range, as one condition, or null. */
  private String condition(Verify.KeyRange range) {
    List<String> parts = new ArrayList<>();
    String filter = snapshot.rowFilter(table.name());
    if (filter != null) {
      parts.add("(" + filter + ")");
    }
    if (range != null) {
      String k = PostgresTableCopy.quote(table.key().get(0));
      parts.add(k + " BETWEEN " + range.from() + " AND " + range.to());
    }
    return parts.isEmpty() ? null : String.join(" AND ", parts);
  }

  @Override
  public TableDigests scan(Verify.KeyRange range, LongConsumer paced) throws SQLException {
    String condition = condition(range);
    Counted counted = count(condition);
    try (PostgresTableCopy copy = PostgresTableCopy.open(snapshot, request, condition, fetchRows, counted.rows)) {
      layout = new ArrayList<>(copy.relation().rowKey().columns());
      layout.addAll(copy.columns());
      TableDigests digests = new TableDigests(table, layout, counted.buckets);
      while (true) {
        List<List<Value>> rows = copy.next(SCAN_BATCH, Long.MAX_VALUE);
        if (rows.isEmpty()) {
          return digests;
        }
        rows.forEach(digests::add);
        paced.accept(rows.size());
      }
    }
  }

  /**
   * The rows to read (one count, which the copy's reader takes as its total), and their buckets:
   * ranges of the key's values when it is one integer column (readable: "id 40,961 to 45,056"),
   * else the key's hash; about {@link Buckets#ROWS_PER_BUCKET} rows each.
   */
  private record Counted(long rows, Buckets buckets) {}

  private Counted count(String condition) throws SQLException {
    boolean ranged = table.hasIntegerKey();
    String k = ranged ? PostgresTableCopy.quote(table.key().get(0)) : null;
    String sql = "SELECT count(*)" + (ranged ? ", min(" + k + "), max(" + k + ")" : "") + from()
        + (condition == null ? "" : " WHERE " + condition);
    try (Statement s = snapshot.connection().createStatement(); ResultSet rs = s.executeQuery(sql)) {
      rs.next();
      long rows = rs.getLong(1);
      int count = Buckets.countFor(rows);
      if (ranged && rows > 0) {
        return new Counted(rows, new Buckets.Ranges(rs.getLong(2), rs.getLong(3), count));
      }
      return new Counted(rows, new Buckets.Hashed(count));
    }
  }

  @Override
  public void exclude(TableDigests digests, Collection<List<Value>> keys, Verify.KeyRange range) throws SQLException {
    if (keys.isEmpty()) {
      return;
    }
    if (layout == null) {
      throw new IllegalStateException("keys are excluded after the scan");
    }
    List<List<Value>> all = new ArrayList<>(keys);
    for (int i = 0; i < all.size(); i += LOOKUP_BATCH) {
      lookUp(digests, all.subList(i, Math.min(all.size(), i + LOOKUP_BATCH)), range);
    }
  }

  /**
   * The rows of these keys: {@code (k1, k2) IN (SELECT * FROM unnest($1::text[]::t1[], ...))},
   * each key value given as the text the change log carries, which is Postgres' own output of it,
   * cast to the column's type, so the comparison is the type's own equality and the index serves
   * it.
   */
  private void lookUp(TableDigests digests, List<List<Value>> keys, Verify.KeyRange range) throws SQLException {
    Connection c = snapshot.connection();
    Map<String, String> typeNames = keyTypes(c);
    List<String> key = table.key();
    StringBuilder sql = new StringBuilder("SELECT ");
    List<ColumnReader> readers = new ArrayList<>();
    for (String col : layout) {
      ColumnReader r = ColumnReader.of(types.get(col));
      readers.add(r);
      sql.append(readers.size() == 1 ? "" : ", ").append(r.expression(PostgresTableCopy.quote(col)));
    }
    sql.append(from()).append(" WHERE (");
    for (int i = 0; i < key.size(); i++) {
      sql.append(i == 0 ? "" : ", ").append(PostgresTableCopy.quote(key.get(i)));
    }
    sql.append(") IN (SELECT * FROM unnest(");
    for (int i = 0; i < key.size(); i++) {
      sql.append(i == 0 ? "" : ", ").append("CAST(CAST(? AS text[]) AS ").append(typeNames.get(key.get(i))).append("[])");
    }
    sql.append("))");
    String condition = condition(range);
    if (condition != null) {
      sql.append(" AND ").append(condition);
    }
    try (PreparedStatement ps = c.prepareStatement(sql.toString())) {
      for (int i = 0; i < key.size(); i++) {
        String[] texts = new String[keys.size()];
        for (int j = 0; j < keys.size(); j++) {
          texts[j] = text(keys.get(j).get(i), key.get(i));
        }
        Array array = c.createArrayOf("text", texts);
        ps.setArray(i + 1, array);
      }
      try (ResultSet rs = ps.executeQuery()) {
        while (rs.next()) {
          List<Value> row = new ArrayList<>(readers.size());
          for (int i = 0; i < readers.size(); i++) {
            row.add(readers.get(i).read(rs, i + 1));
          }
          digests.exclude(row);
        }
      }
    }
  }

  /** A key value as Postgres reads it back: the text it printed, numbers and booleans as literals. */
  private String text(Value v, String column) {
    if (v instanceof Value.Text t) {
      return t.value();
    }
    if (v instanceof Value.Int i) {
      return Long.toString(i.value());
    }
    if (v instanceof Value.Float f) {
      double d = f.value();
      return Double.isNaN(d) ? "NaN" : Double.isInfinite(d) ? (d > 0 ? "Infinity" : "-Infinity") : Double.toString(d);
    }
    if (v instanceof Value.Bool b) {
      return b.value() ? "true" : "false";
    }
    throw new IllegalArgumentException("row-key column " + column + " of " + table.name() + " holds " + v
        + ", which a verification cannot look up");
  }

  /** The key columns' types as Postgres names them ({@code format_type}: qualified where needed). */
  private Map<String, String> keyTypes(Connection c) throws SQLException {
    if (keyTypes == null) {
      Map<String, String> out = new HashMap<>();
      try (PreparedStatement ps = c.prepareStatement("SELECT a.attname, pg_catalog.format_type(a.atttypid, NULL) "
          + "FROM pg_catalog.pg_attribute a WHERE a.attrelid = ? AND a.attnum > 0 AND NOT a.attisdropped")) {
        ps.setLong(1, table.metadata().relationOid());
        try (ResultSet rs = ps.executeQuery()) {
          while (rs.next()) {
            out.put(rs.getString(1), rs.getString(2));
          }
        }
      }
      keyTypes = out;
    }
    return keyTypes;
  }

  @Override
  public void close() {
    snapshot.end();
  }
}
