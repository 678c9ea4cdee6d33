package io.pg2lite.source.value;

import io.pg2lite.protocol.value.Value;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
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
    if (raw instanceof List<?> l) {
      return l.size() == 1 && UNCHANGED_TOAST.equals(l.get(0));
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
    if (name != null) {
      Value semantic = semantic(column, name, raw);
      if (semantic != null) {
        return semantic;
      }
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
      case ARRAY:
        List<Value> elements = new ArrayList<>();
        for (Object e : (List<?>) raw) {
          elements.add(value(column, schema.valueSchema(), e));
        }
        return new Value.Array(elements);
      default:
        throw new IllegalArgumentException("column \"" + column + "\": values of Connect type " + schema.type()
            + (name == null ? "" : " (" + name + ")") + " are not supported by pg2lite; see docs/type-mapping.md");
    }
  }

  /** Debezium's logical types for dates and times, by schema name; null when not one of them. */
  private static Value semantic(String column, String name, Object raw) {
    switch (name) {
      case "io.debezium.time.Date":
        return new Value.Text(TemporalText.date(((Number) raw).longValue()));
      case "io.debezium.time.MicroTime":
        return new Value.Text(TemporalText.time(((Number) raw).longValue() * 1000));
      case "io.debezium.time.Time":
        return new Value.Text(TemporalText.time(((Number) raw).longValue() * 1_000_000));
      case "io.debezium.time.NanoTime":
        return new Value.Text(TemporalText.time(((Number) raw).longValue()));
      case "io.debezium.time.MicroTimestamp":
        return timestamp(column, ((Number) raw).longValue(), 1_000_000L);
      case "io.debezium.time.Timestamp":
        return timestamp(column, ((Number) raw).longValue(), 1000L);
      case "io.debezium.time.NanoTimestamp":
        return timestamp(column, ((Number) raw).longValue(), 1_000_000_000L);
      case "io.debezium.time.ZonedTime":
        return new Value.Text(TemporalText.timeTz((String) raw));
      case "io.debezium.time.ZonedTimestamp":
        return new Value.Text(TemporalText.timestampTz((String) raw));
      case "io.debezium.time.Interval":
        return new Value.Text(TemporalText.interval((String) raw));
      default:
        return null;
    }
  }

  /** Postgres' first timestamp, 4714-11-24 00:00 BC, in microseconds since 1970. */
  private static final long POSTGRES_MIN_MICROS = -210_866_803_200_000_000L;

  /**
   * A timestamp without time zone, which Debezium hands over as a count since 1970. It sends
   * Postgres' {@code infinity} and {@code -infinity} as the largest and smallest long, which the
   * log spells as Postgres does (so does a backfill copy). Postgres goes on to 294276 AD, while
   * 64-bit microseconds end in 294247: Debezium saturates the seconds and adds the fraction, so a
   * later value with a fraction wraps below Postgres' first timestamp, and one without a fraction
   * is read as infinity (the known limit of docs/type-mapping.md). A wrapped value is refused.
   */
  private static Value timestamp(String column, long value, long unitsPerSecond) {
    if (unitsPerSecond == 1_000_000L) {
      if (value == Long.MAX_VALUE) {
        return new Value.Text("infinity");
      }
      if (value == Long.MIN_VALUE) {
        return new Value.Text("-infinity");
      }
      if (value < POSTGRES_MIN_MICROS) {
        throw new IllegalArgumentException("column \"" + column + "\": a timestamp value after "
            + "294247-01-10T04:00:54.775807 cannot be replicated exactly"
            + " (Debezium's range for timestamp without time zone; docs/type-mapping.md, known limits)");
      }
    }
    long nanosPerUnit = 1_000_000_000L / unitsPerSecond;
    return new Value.Text(TemporalText.timestamp(Math.floorDiv(value, unitsPerSecond),
        Math.floorMod(value, unitsPerSecond) * nanosPerUnit));
  }

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
