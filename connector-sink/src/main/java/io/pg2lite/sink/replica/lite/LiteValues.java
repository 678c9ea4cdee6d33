package io.pg2lite.sink.replica.lite;

import io.pg2lite.protocol.value.Value;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.util.HexFormat;

/**
 * Binds change-log values as SQLite values: integers as INTEGER, floats as REAL, booleans as 1/0,
 * bytea ("\x..." text) as BLOB, arrays as their JSON text, everything else as TEXT unchanged
 * (exact numerics, timestamps in the log's ISO form, json). NaN and infinities of float columns
 * arrive as text and stay text: SQLite has no REAL for NaN.
 *
 * <p>Negative zero is stored as the TEXT {@value #NEGATIVE_ZERO}, the way NaN is: SQLite writes a
 * REAL without fraction in a REAL-affinity column as an integer, so a REAL -0.0 reads back as 0.0,
 * and it converts any text that reads as a number ({@code '-0'}, {@code '-0.0'}) into such a
 * REAL. The hexadecimal float spelling is not a number to SQLite, and C's {@code strtod}, Java's
 * {@code Double.parseDouble}, Go's {@code ParseFloat} and Python's {@code float.fromhex} read it
 * back as -0.0. Invariant: every float the change log carries reads back from the replica
 * exactly.
 */
public final class LiteValues {
  /** How a float column stores -0.0 (C's {@code printf("%a", -0.0)}). */
  public static final String NEGATIVE_ZERO = "-0x0p+0";

  private LiteValues() {}

  /** Whether {@code d} is -0.0 (which {@code == 0.0} does not tell from 0.0). */
  public static boolean isNegativeZero(double d) {
    return Double.doubleToRawLongBits(d) == Double.doubleToRawLongBits(-0.0);
  }

  public static void bind(PreparedStatement ps, int index, Value v, LiteTypes.Storage storage) throws SQLException {
    if (v instanceof Value.Null) {
      ps.setNull(index, java.sql.Types.NULL);
    } else if (v instanceof Value.Bool b) {
      ps.setInt(index, b.value() ? 1 : 0);
    } else if (v instanceof Value.Int i) {
      ps.setLong(index, i.value());
    } else if (v instanceof Value.Float f) {
      if (storage == LiteTypes.Storage.REAL && isNegativeZero(f.value())) {
        ps.setString(index, NEGATIVE_ZERO);
      } else {
        ps.setDouble(index, f.value());
      }
    } else if (v instanceof Value.Text t) {
      if (storage == LiteTypes.Storage.BLOB && t.value().startsWith("\\x")) {
        ps.setBytes(index, HexFormat.of().parseHex(t.value(), 2, t.value().length()));
      } else {
        ps.setString(index, t.value());
      }
    } else if (v instanceof Value.Array a) {
      ps.setString(index, arrayJson(a));
    } else {
      throw new IllegalStateException("unhandled value " + v);
    }
  }

  /** A Postgres array as JSON text. */
  public static String arrayJson(Value.Array a) {
    StringBuilder sb = new StringBuilder("[");
    for (int i = 0; i < a.elements().size(); i++) {
      if (i > 0) {
        sb.append(',');
      }
      Value e = a.elements().get(i);
      if (e instanceof Value.Null) {
        sb.append("null");
      } else if (e instanceof Value.Bool b) {
        sb.append(b.value());
      } else if (e instanceof Value.Int n) {
        sb.append(n.value());
      } else if (e instanceof Value.Float f) {
        sb.append(f.value());
      } else if (e instanceof Value.Text t) {
        jsonString(sb, t.value());
      } else {
        sb.append(arrayJson((Value.Array) e));
      }
    }
    return sb.append(']').toString();
  }

  private static void jsonString(StringBuilder sb, String s) {
    sb.append('"');
    for (int i = 0; i < s.length(); i++) {
      char c = s.charAt(i);
      if (c == '"' || c == '\\') {
        sb.append('\\').append(c);
      } else if (c < 0x20) {
        sb.append(String.format("\\u%04x", (int) c));
      } else {
        sb.append(c);
      }
    }
    sb.append('"');
  }
}
