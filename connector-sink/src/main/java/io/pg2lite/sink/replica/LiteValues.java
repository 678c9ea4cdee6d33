package io.pg2lite.sink.replica;

import io.pg2lite.protocol.value.Value;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.util.HexFormat;

/**
 * Binds change-log values as SQLite values: integers as INTEGER, floats as REAL, booleans as 1/0,
 * bytea ("\x..." text) as BLOB, arrays as their JSON text, everything else as TEXT unchanged
 * (exact numerics, timestamps in the log's ISO form, json). NaN and infinities of float columns
 * arrive as text and stay text: SQLite has no REAL for NaN.
 */
public final class LiteValues {
  private LiteValues() {}

  public static void bind(PreparedStatement ps, int index, Value v, LiteTypes.Storage storage) throws SQLException {
    if (v instanceof Value.Null) {
      ps.setNull(index, java.sql.Types.NULL);
    } else if (v instanceof Value.Bool b) {
      ps.setInt(index, b.value() ? 1 : 0);
    } else if (v instanceof Value.Int i) {
      ps.setLong(index, i.value());
    } else if (v instanceof Value.Float f) {
      ps.setDouble(index, f.value());
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
  static String arrayJson(Value.Array a) {
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
