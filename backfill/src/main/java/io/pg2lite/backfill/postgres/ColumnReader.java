package io.pg2lite.backfill.postgres;

import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.pg2lite.protocol.value.Value;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;

/**
 * Reads one column of a snapshot row as the protocol value the main stream would carry for it
 * (docs/type-mapping.md): a copied row and a replicated row of the same data must be equal, or
 * replicas would differ by path. Each reader pairs the SQL expression that makes Postgres print
 * the value in (or close to) the log's form with the conversion of what JDBC returns. The session
 * runs with {@code TimeZone=UTC}, {@code DateStyle=ISO}, {@code IntervalStyle=iso_8601},
 * {@code bytea_output=hex} and {@code extra_float_digits=3} (see {@link PostgresTableCopy}).
 */
abstract class ColumnReader {
  /** Numbers stay exact, trailing zeros included: numeric[] {1.10} must stay "1.10". */
  private static final ObjectMapper JSON = new ObjectMapper()
      .enable(DeserializationFeature.USE_BIG_DECIMAL_FOR_FLOATS)
      .enable(DeserializationFeature.USE_BIG_INTEGER_FOR_INTS)
      .setNodeFactory(com.fasterxml.jackson.databind.node.JsonNodeFactory.withExactBigDecimals(true));

  /** The select-list expression for the (quoted) column. */
  abstract String expression(String quotedColumn);

  /** The value at {@code index} of the current row. */
  abstract Value read(ResultSet rs, int index) throws SQLException;

  /** The reader for a column of Postgres type {@code type} (a domain's base type, arrays' elements). */
  static ColumnReader of(ColumnType type) {
    if (type.isArray()) {
      return new ArrayReader(Kind.of(type.elementTypeName()));
    }
    return new ScalarReader(Kind.of(type.typeName()));
  }

  /** How a scalar of each Postgres type travels. */
  enum Kind {
    INT, FLOAT4, FLOAT8, BOOL, DATE, TIMESTAMP, TIMESTAMPTZ, TIMETZ, BYTEA, JSON_TEXT, TEXT;

    static Kind of(String typeName) {
      switch (typeName) {
        case "int2":
        case "int4":
        case "int8":
        case "oid":
          return INT;
        case "float4":
          return FLOAT4;
        case "float8":
          return FLOAT8;
        case "bool":
          return BOOL;
        case "date":
          return DATE;
        case "timestamp":
          return TIMESTAMP;
        case "timestamptz":
          return TIMESTAMPTZ;
        case "timetz":
          return TIMETZ;
        case "bytea":
          return BYTEA;
        case "hstore":
          return JSON_TEXT;
        default:
          return TEXT; // numeric, text types, uuid, json, jsonb, time, interval, enums: Postgres' text
      }
    }
  }

  private static final class ScalarReader extends ColumnReader {
    private final Kind kind;

    ScalarReader(Kind kind) {
      this.kind = kind;
    }

    @Override
    String expression(String col) {
      switch (kind) {
        case TIMETZ:
          return "(" + col + " AT TIME ZONE 'UTC')";
        case BYTEA:
          return col + "::text";
        case JSON_TEXT:
          return "to_json(" + col + ")::text";
        default:
          return col;
      }
    }

    @Override
    Value read(ResultSet rs, int i) throws SQLException {
      switch (kind) {
        case INT: {
          long v = rs.getLong(i);
          return rs.wasNull() ? Value.NULL : new Value.Int(v);
        }
        case FLOAT4: {
          float v = rs.getFloat(i);
          return rs.wasNull() ? Value.NULL : Value.ofDouble(v);
        }
        case FLOAT8: {
          double v = rs.getDouble(i);
          return rs.wasNull() ? Value.NULL : Value.ofDouble(v);
        }
        case BOOL: {
          boolean v = rs.getBoolean(i);
          return rs.wasNull() ? Value.NULL : Value.of(v);
        }
        default: {
          String s = rs.getString(i);
          return s == null ? Value.NULL : new Value.Text(text(kind, s));
        }
      }
    }
  }

  private static final class ArrayReader extends ColumnReader {
    private final Kind element;

    ArrayReader(Kind element) {
      this.element = element;
    }

    /**
     * Float elements travel as their text ({@code col::text[]}): JSON would print -0 as the integer
     * token {@code -0}, which reads back as 0, losing the sign the live stream keeps.
     */
    @Override
    String expression(String col) {
      boolean floats = element == Kind.FLOAT4 || element == Kind.FLOAT8;
      return "to_json(" + col + (floats ? "::text[]" : "") + ")::text";
    }

    @Override
    Value read(ResultSet rs, int i) throws SQLException {
      String s = rs.getString(i);
      if (s == null) {
        return Value.NULL;
      }
      try {
        return fromJson(JSON.readTree(s));
      } catch (java.io.IOException e) {
        throw new SQLException("array value is not the JSON Postgres prints: " + s, e);
      }
    }

    private Value fromJson(JsonNode n) {
      if (n.isNull()) {
        return Value.NULL;
      }
      if (n.isArray()) {
        List<Value> out = new ArrayList<>(n.size());
        n.forEach(e -> out.add(fromJson(e)));
        return new Value.Array(out);
      }
      switch (element) {
        case INT:
          return new Value.Int(n.bigIntegerValue().longValueExact());
        case FLOAT4:
          return Value.ofDouble(n.isNumber() ? n.floatValue() : Float.parseFloat(n.asText()));
        case FLOAT8:
          return Value.ofDouble(n.isNumber() ? n.doubleValue() : Double.parseDouble(n.asText()));
        case BOOL:
          return Value.of(n.booleanValue());
        case DATE:
          return new Value.Text(astronomicalYear(n.asText()));
        case TIMESTAMP:
          return new Value.Text(astronomicalYear(n.asText()));
        case TIMESTAMPTZ:
          return new Value.Text(isoUtc(astronomicalYear(n.asText())));
        case TIMETZ:
          return new Value.Text(n.asText().replaceFirst("\\+00(:00)?$", "Z"));
        default:
          if (n.isNumber()) {
            return new Value.Text(n.decimalValue().toPlainString()); // numeric elements: exact text
          }
          return new Value.Text(n.isTextual() ? n.textValue() : n.toString());
      }
    }
  }

  /** Postgres' text of a scalar, in the log's form. */
  static String text(Kind kind, String s) {
    switch (kind) {
      case DATE:
        return astronomicalYear(s);
      case TIMESTAMP:
        return astronomicalYear(s).replace(' ', 'T');
      case TIMESTAMPTZ:
        return isoUtc(astronomicalYear(s));
      case TIMETZ:
        return s.replaceFirst("\\+00(:00)?$", "Z");
      default:
        return s;
    }
  }

  /**
   * A date's year in ISO 8601's astronomical numbering, the log's form (docs/type-mapping.md) and
   * java.time's, which the live stream uses: Postgres prints {@code 0044-03-15 BC}, the log
   * {@code -0043-03-15} (1 BC is year 0, 2 BC year -1). Other values are returned unchanged.
   */
  static String astronomicalYear(String s) {
    if (!s.endsWith(" BC")) {
      return s;
    }
    String ad = s.substring(0, s.length() - 3);
    int dash = ad.indexOf('-');
    long year = 1 - Long.parseLong(ad.substring(0, dash));
    String digits = String.format(java.util.Locale.ROOT, "%04d", Math.abs(year));
    return (year < 0 ? "-" : "") + digits + ad.substring(dash);
  }

  /** "2025-01-02 03:04:05.5+00" (or JSON's "...T...+00:00") → "2025-01-02T03:04:05.5Z". */
  private static String isoUtc(String s) {
    return s.replace(' ', 'T').replaceFirst("\\+00(:00)?$", "Z");
  }

}
