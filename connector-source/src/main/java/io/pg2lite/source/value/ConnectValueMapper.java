package io.pg2lite.source.value;

import io.pg2lite.protocol.value.Value;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.HexFormat;
import org.apache.kafka.connect.data.Schema;

/**
 * Converts the values Debezium's converters produce (Connect values, with pg2lite's fixed Debezium
 * settings) into protocol values, one column at a time: no Connect {@code Struct} per row. The
 * mapping is documented in docs/type-mapping.md; every value either maps
 * exactly or fails naming the column and its type: a silently wrong value corrupts replicas.
 */
public final class ConnectValueMapper {
  private static final HexFormat HEX = HexFormat.of();

  /**
   * The text Debezium hands over for a value it does not have (an unchanged TOASTed column, with
   * pg2lite's settings, {@code unavailable.value.placeholder}); the decoder flags such columns
   * itself, this catches any that slip through as a value.
   */
  public static final String UNCHANGED_TOAST = "__pg2lite_unchanged_toast__";

  /** Whether a converted value is the placeholder of an unchanged TOASTed column, in any of its Connect forms. */
  public static boolean isUnchangedToast(Object raw) {
    if (raw instanceof String s) {
      return s.equals(UNCHANGED_TOAST);
    }
    if (raw instanceof ByteBuffer b) {
      return b.remaining() == PLACEHOLDER_BYTES.length && ByteBuffer.wrap(PLACEHOLDER_BYTES).equals(b);
    }
    if (raw instanceof byte[] b) {
      return java.util.Arrays.equals(b, PLACEHOLDER_BYTES);
    }
    return false;
  }

  private static final byte[] PLACEHOLDER_BYTES =
      UNCHANGED_TOAST.getBytes(java.nio.charset.StandardCharsets.UTF_8);

  /**
   * The protocol value of one column: {@code raw} as the column's Debezium converter produced it,
   * typed by the column's Connect {@code schema} (its type, logical name and source-type parameter).
   */
  public Value value(String column, Schema schema, Object raw) {
    if (raw == null) {
      return Value.NULL;
    }
    String name = schema.name();
    if (name != null && name.startsWith(DEBEZIUM_TIME)) {
      // dates, times and intervals are read from Postgres' text (TextReading): one reaching here
      // would be Debezium's reading, which misreads infinity and 24:00 (issue 32)
      throw new IllegalStateException("column \"" + column + "\": a " + name + " value took Debezium's reading; "
          + "pg2lite reads dates and times from Postgres' text");
    }
    switch (schema.type()) {
      case INT8:
      case INT16:
      case INT32:
      case INT64:
        return new Value.Int(((Number) raw).longValue());
      case FLOAT32:
      case FLOAT64:
        return Value.ofDouble(((Number) raw).doubleValue());
      case BOOLEAN:
        return new Value.Bool((Boolean) raw);
      case STRING:
        return new Value.Text(isNumeric(schema) ? numericSpecial((String) raw) : (String) raw);
      case BYTES:
        if (isDroppedType(schema)) {
          return new Value.Text(new String(bytes(raw), StandardCharsets.UTF_8));
        }
        return new Value.Text("\\x" + HEX.formatHex(bytes(raw)));
      default:
        throw new IllegalArgumentException("column \"" + column + "\": values of Connect type " + schema.type()
            + (name == null ? "" : " (" + name + ")") + " are not supported by pg2lite; see docs/type-mapping.md");
    }
  }

  /** The package of Debezium's logical types for dates, times and intervals. */
  private static final String DEBEZIUM_TIME = "io.debezium.time.";

  /** The Postgres type Debezium recorded for a field (column.propagate.source.type), upper case. */
  static String sourceType(Schema schema) {
    return schema.parameters() == null ? null : schema.parameters().get("__debezium.source.column.type");
  }

  /**
   * True for a column whose type no longer exists: a row written before its type was dropped
   * (an enum retyped to text, then dropped, while the source lagged). Debezium types columns by
   * the Relation message's type OID; when the catalog no longer has that OID it uses its
   * "unknown" type and hands over the value's text (as Postgres printed it, in UTF-8) as bytes.
   * That text is the value (an enum's label), so it travels as a string, never as hex.
   */
  static boolean isDroppedType(Schema schema) {
    return DROPPED_TYPE.equals(sourceType(schema));
  }

  /** The source column type Debezium reports for a type OID its registry cannot resolve. */
  static final String DROPPED_TYPE = "UNKNOWN";

  private static boolean isNumeric(Schema schema) {
    String type = sourceType(schema);
    return "NUMERIC".equals(type) || "DECIMAL".equals(type);
  }

  /** Debezium spells numeric's special values its own way; the log uses Postgres' spelling. */
  private static String numericSpecial(String s) {
    switch (s) {
      case "NAN":
        return "NaN";
      case "POSITIVE_INFINITY":
        return "Infinity";
      case "NEGATIVE_INFINITY":
        return "-Infinity";
      default:
        return s;
    }
  }


  private static byte[] bytes(Object raw) {
    if (raw instanceof byte[] b) {
      return b;
    }
    ByteBuffer buf = ((ByteBuffer) raw).duplicate();
    byte[] out = new byte[buf.remaining()];
    buf.get(out);
    return out;
  }
}
