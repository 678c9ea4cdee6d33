package io.pg2lite.replica.lite;

import io.pg2lite.protocol.stored.ReplicaStorage;
import io.pg2lite.protocol.stored.StoredForm;
import io.pg2lite.protocol.value.Value;
import java.nio.charset.StandardCharsets;
import java.sql.SQLException;
import java.util.function.Supplier;

/**
 * The largest value a replica holds: SQLite refuses a string or BLOB over its length limit
 * ({@code SQLITE_MAX_LENGTH}, 1,000,000,000 bytes in the sqlite-jdbc build the sink uses; a row
 * as a whole is bound by it too), where Postgres stores values up to 1 GiB (1,073,741,823 bytes).
 * SQLite's own error ("string or blob too big") names neither the table nor the row, so values
 * are checked before they are bound, and a value over the limit fails naming its table, column,
 * row key and size. The failure is permanent: the sink stops at the transaction holding the
 * value, and nothing committed before it is lost.
 *
 * <p>Cost: a text shorter than a third of the limit in characters cannot exceed it in UTF-8
 * bytes (three bytes per UTF-16 unit at most), so only values that large are measured.
 */
public final class ValueLength {
  /** SQLSTATE 54000, "program limit exceeded": not a fault a retry could heal. */
  static final String PROGRAM_LIMIT_EXCEEDED = "54000";

  private ValueLength() {}

  /**
   * Fails when {@code v}, stored as {@code storage}, exceeds {@code limit} bytes; returns its
   * stored size, or a number at most {@code limit} when that cannot exceed it, for the caller's
   * row total (a row is bound by the same limit).
   *
   * @param key the row's key, for the message only (made when the check fails)
   */
  public static long check(Value v, ReplicaStorage storage, long limit, String table, String column,
      Supplier<String> key) throws SQLException {
    long bytes = storedBytes(v, storage, limit);
    if (bytes > limit) {
      throw new SQLException("the value of column " + column + " of table " + table + " in the row with key "
          + key.get() + " is " + bytes + " bytes; SQLite stores values of at most " + limit + " bytes "
          + "(SQLITE_MAX_LENGTH). Postgres accepts up to 1 GiB: keep such values out of the publication (a column "
          + "list) or below the limit", PROGRAM_LIMIT_EXCEEDED);
    }
    return bytes;
  }

  /** Fails when a row's values (as {@link #check} measured them) add up past {@code limit}. */
  public static void checkRow(long rowBytes, long limit, String table, Supplier<String> key) throws SQLException {
    if (rowBytes > limit) {
      throw new SQLException("the row of table " + table + " with key " + key.get() + " holds " + rowBytes
          + " bytes of values; SQLite stores rows of at most " + limit + " bytes (SQLITE_MAX_LENGTH)",
          PROGRAM_LIMIT_EXCEEDED);
    }
  }

  /**
   * The bytes {@code v} takes stored; for values that cannot come near the limit, their length in
   * characters (a lower bound that keeps the row total cheap).
   */
  static long storedBytes(Value v, ReplicaStorage storage, long limit) {
    if (v instanceof Value.Text t) {
      String s = t.value();
      if (storage == ReplicaStorage.BLOB && s.startsWith("\\x")) {
        return (s.length() - 2) / 2;
      }
      return (long) s.length() * 3 <= limit ? s.length() : s.getBytes(StandardCharsets.UTF_8).length;
    }
    if (v instanceof Value.Array a) {
      // JSON escaping takes at most 6 bytes per character (\\u00XX), plus separators and quotes.
      long chars = chars(a);
      return chars * 6 <= limit ? chars : StoredForm.arrayJson(a).getBytes(StandardCharsets.UTF_8).length;
    }
    return 0;
  }

  /**
   * A row's key as a message shows it, {@code {id=3, region=eu}}: the values of {@code columns}
   * in order, each cut at 100 characters (a key may hold a long text).
   */
  public static String keyText(Iterable<String> columns, java.util.function.Function<String, Value> value) {
    StringBuilder b = new StringBuilder("{");
    for (String col : columns) {
      String text = display(value.apply(col));
      b.append(b.length() > 1 ? ", " : "").append(col).append('=')
          .append(text.length() > 100 ? text.substring(0, 100) + "…" : text);
    }
    return b.append('}').toString();
  }

  /** A value as a message shows it: text as is, numbers and booleans as written, null as null. */
  public static String display(Value v) {
    if (v == null || v instanceof Value.Null) {
      return "null";
    }
    if (v instanceof Value.Text t) {
      return t.value();
    }
    if (v instanceof Value.Int i) {
      return Long.toString(i.value());
    }
    if (v instanceof Value.Float f) {
      return Double.toString(f.value());
    }
    if (v instanceof Value.Bool b) {
      return Boolean.toString(b.value());
    }
    return StoredForm.arrayJson((Value.Array) v);
  }

  private static long chars(Value.Array a) {
    long n = 2;
    for (Value e : a.elements()) {
      n += 4 + (e instanceof Value.Text t ? t.value().length() : e instanceof Value.Array inner ? chars(inner) : 24);
    }
    return n;
  }
}
