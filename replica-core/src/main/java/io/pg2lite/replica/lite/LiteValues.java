package io.pg2lite.replica.lite;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonFactoryBuilder;
import com.fasterxml.jackson.core.JsonGenerator;
import io.pg2lite.protocol.codec.ValueJson;
import io.pg2lite.protocol.value.Value;
import java.io.IOException;
import java.io.StringWriter;
import java.io.UncheckedIOException;
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

  private static final JsonFactory STORED_JSON = new JsonFactoryBuilder()
      .characterEscapes(new StoredJsonEscapes()).build();

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

  /**
   * A Postgres array as the JSON text the replica stores (array columns, row keys in the change
   * log of rows, array defaults). The value rule is the protocol's ({@link ValueJson}), so a value
   * reads alike on the wire and in the replica; only string escaping is the replica's own
   * ({@link StoredJsonEscapes}), and it must stay as it is: stored texts are compared byte for byte.
   */
  public static String arrayJson(Value.Array a) {
    StringWriter out = new StringWriter();
    try (JsonGenerator g = STORED_JSON.createGenerator(out)) {
      ValueJson.write(g, a);
    } catch (IOException e) {
      throw new UncheckedIOException(e); // a StringWriter does not fail
    }
    return out.toString();
  }
}
