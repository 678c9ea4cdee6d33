package io.pg2lite.protocol.stored;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonFactoryBuilder;
import com.fasterxml.jackson.core.JsonGenerator;
import io.pg2lite.protocol.codec.ValueJson;
import io.pg2lite.protocol.value.Value;
import java.io.IOException;
import java.io.StringWriter;
import java.io.UncheckedIOException;
import java.util.HexFormat;

/**
 * What a change-log value becomes in a replica column of a given storage: integers INTEGER,
 * floats REAL, booleans 1/0, bytea ("\x..." text) a BLOB, arrays their JSON text, everything else
 * the text unchanged (exact numerics, timestamps in the log's ISO form, json). NaN and infinities
 * of float columns arrive as text and stay text: SQLite has no REAL for NaN.
 *
 * <p>Negative zero is stored as the TEXT {@value #NEGATIVE_ZERO}, the way NaN is: SQLite writes a
 * REAL without fraction in a REAL-affinity column as an integer, so a REAL -0.0 reads back as 0.0,
 * and it converts any text that reads as a number ({@code '-0'}, {@code '-0.0'}) into such a
 * REAL. The hexadecimal float spelling is not a number to SQLite, and C's {@code strtod}, Java's
 * {@code Double.parseDouble}, Go's {@code ParseFloat} and Python's {@code float.fromhex} read it
 * back as -0.0. Invariant: every float the change log carries reads back from the replica
 * exactly.
 *
 * <p>A value of another kind than its column's storage (an integer in a text column) is what
 * SQLite's type affinity makes of it: the declared types give every column the affinity of its
 * storage (replica-core's {@code LiteTypes}), so an integer becomes its decimal text in a TEXT
 * column and a REAL in a REAL one.
 */
public final class StoredForm {
  /** How a float column stores -0.0 (C's {@code printf("%a", -0.0)}). */
  public static final String NEGATIVE_ZERO = "-0x0p+0";

  private static final JsonFactory STORED_JSON = new JsonFactoryBuilder()
      .characterEscapes(new StoredJsonEscapes()).build();

  private StoredForm() {}

  /** {@code v} as a column of {@code storage} holds it. */
  public static StoredValue of(Value v, ReplicaStorage storage) {
    if (v instanceof Value.Null) {
      return StoredValue.NULL;
    } else if (v instanceof Value.Bool b) {
      return new StoredValue.Integer(b.value() ? 1 : 0);
    } else if (v instanceof Value.Int i) {
      return switch (storage) {
        case REAL -> new StoredValue.Real(i.value());
        case TEXT -> new StoredValue.Text(Long.toString(i.value()));
        default -> new StoredValue.Integer(i.value());
      };
    } else if (v instanceof Value.Float f) {
      if (storage == ReplicaStorage.REAL && isNegativeZero(f.value())) {
        return new StoredValue.Text(NEGATIVE_ZERO);
      }
      return new StoredValue.Real(f.value());
    } else if (v instanceof Value.Text t) {
      String s = t.value();
      if (storage == ReplicaStorage.BLOB && s.startsWith("\\x")) {
        return new StoredValue.Blob(HexFormat.of().parseHex(s, 2, s.length()));
      }
      return new StoredValue.Text(s);
    } else if (v instanceof Value.Array a) {
      return new StoredValue.Text(arrayJson(a));
    }
    throw new IllegalStateException("unhandled value " + v);
  }

  /** Whether {@code d} is -0.0 (which {@code == 0.0} does not tell from 0.0). */
  public static boolean isNegativeZero(double d) {
    return Double.doubleToRawLongBits(d) == Double.doubleToRawLongBits(-0.0);
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
