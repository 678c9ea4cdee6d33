package io.pg2lite.testkit.fuzz;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.HexFormat;
import java.util.Locale;

/**
 * One cell as the replica stores it: its SQLite storage class ({@code null}, {@code integer},
 * {@code real}, {@code text}, {@code blob}) and its value as text. A Postgres value is turned into
 * the cell docs/type-mapping.md says the replica must hold; a replica cell is read as is; the two
 * are equal exactly when the replica is right:
 *
 * <table>
 *   <caption>Postgres → replica</caption>
 *   <tr><td>int2, int4, int8</td><td>integer</td></tr>
 *   <tr><td>float4, float8</td><td>real, the same double (float4 widened);
 *       NaN, Infinity, -Infinity as text; -0 as the text -0x0p+0</td></tr>
 *   <tr><td>bool</td><td>integer 1 / 0</td></tr>
 *   <tr><td>bytea</td><td>blob, the bytes</td></tr>
 *   <tr><td>arrays</td><td>text, a JSON array of the change-log element values (compared as JSON)</td></tr>
 *   <tr><td>timestamp</td><td>text {@code YYYY-MM-DDTHH:MM:SS[.fraction]}</td></tr>
 *   <tr><td>timestamptz</td><td>text, in UTC, suffix {@code Z}</td></tr>
 *   <tr><td>timetz</td><td>text, in UTC, suffix {@code Z}</td></tr>
 *   <tr><td>everything else</td><td>text, exactly Postgres' text (numeric exact, json as stored,
 *       jsonb as printed, interval in ISO 8601)</td></tr>
 * </table>
 *
 * <p>The year of a date or timestamp is ISO 8601's astronomical year, as type-mapping.md says: at
 * least four digits, more after 9999 with no sign, 1 BC as {@code 0000} and 44 BC as {@code -0043}
 * (Postgres prints {@code 0044-03-15 BC}).
 */
record ExpectedCell(String storage, String text) {
  private static final ObjectMapper JSON = new ObjectMapper()
      .enable(DeserializationFeature.USE_BIG_DECIMAL_FOR_FLOATS)
      .enable(DeserializationFeature.USE_BIG_INTEGER_FOR_INTS)
      .setNodeFactory(JsonNodeFactory.withExactBigDecimals(true));
  private static final ExpectedCell NULL = new ExpectedCell("null", null);

  /** How a Postgres type's values are compared. */
  enum Scalar { INT, FLOAT, BOOL, BYTEA, DATE, TIMESTAMP, TIMESTAMPTZ, TIMETZ, NUMERIC, MONEY, HSTORE, JSON, COMPOSITE,
    TEXT }

  /** A column's comparison kind: its scalar (the element's, for arrays) and whether it is an array. */
  record Kind(Scalar scalar, boolean array) {
    static Kind of(String typname, boolean array) {
      return of(typname, "b", array);
    }

    /** As {@link #of(String, boolean)}, with the type's typtype ({@code c} for a composite). */
    static Kind of(String typname, String typtype, boolean array) {
      Scalar s = "c".equals(typtype) ? Scalar.COMPOSITE : switch (typname) {
        case "int2", "int4", "int8", "oid" -> Scalar.INT;
        case "float4", "float8" -> Scalar.FLOAT;
        case "bool" -> Scalar.BOOL;
        case "bytea" -> Scalar.BYTEA;
        case "date" -> Scalar.DATE;
        case "timestamp" -> Scalar.TIMESTAMP;
        case "timestamptz" -> Scalar.TIMESTAMPTZ;
        case "timetz" -> Scalar.TIMETZ;
        case "numeric" -> Scalar.NUMERIC;
        case "money" -> Scalar.MONEY;
        case "hstore" -> Scalar.HSTORE;
        case "json", "jsonb" -> Scalar.JSON;
        default -> Scalar.TEXT;
      };
      return new Kind(s, array);
    }
  }

  /** The select-list expression that makes Postgres print the (quoted) column for {@link #fromPostgres}. */
  static String postgresExpression(Kind kind, String column) {
    if (kind.array()) {
      // json and composite elements as their text (to_json would embed them as JSON values), float
      // elements widened to the double the log carries, others as to_json prints them
      String cast = switch (kind.scalar()) {
        case JSON, COMPOSITE -> "::text[]";
        case FLOAT -> "::float8[]";
        default -> "";
      };
      return "to_json(" + column + cast + ")::text";
    }
    return switch (kind.scalar()) {
      case FLOAT -> column + "::float8::text";
      case BYTEA -> "encode(" + column + ", 'hex')";
      case TIMETZ -> "(" + column + " AT TIME ZONE 'UTC')::text";
      case MONEY -> column + "::numeric::text"; // the amount, without the locale's symbols
      case HSTORE -> "to_json(" + column + ")::text";
      // the type's output function: a ::text cast differs from it for some types (inet adds the
      // netmask, char(n) loses its padding)
      // (num_nulls: a composite whose fields are all NULL is not NULL, but IS NULL says it is)
      default -> "(CASE WHEN num_nulls(" + column + ") = 1 THEN NULL ELSE format('%s', " + column + ") END)";
    };
  }

  /** The cell the replica must hold for Postgres' text {@code s} (null for SQL NULL). */
  static ExpectedCell fromPostgres(Kind kind, String s) {
    if (s == null) {
      return NULL;
    }
    if (kind.array()) {
      return new ExpectedCell("text", canonicalArray(s, kind.scalar()));
    }
    return switch (kind.scalar()) {
      case INT -> new ExpectedCell("integer", s);
      case FLOAT -> switch (s) {
        case "NaN", "Infinity", "-Infinity" -> new ExpectedCell("text", s);
        // docs/type-mapping.md: SQLite turns a REAL -0.0 into 0, so the sink stores it as text.
        case "-0" -> new ExpectedCell("text", "-0x0p+0");
        default -> new ExpectedCell("real", Double.toString(Double.parseDouble(s)));
      };
      case BOOL -> new ExpectedCell("integer", "true".equals(s) || "t".equals(s) ? "1" : "0");
      case BYTEA -> new ExpectedCell("blob", s.toLowerCase(Locale.ROOT));
      case DATE -> new ExpectedCell("text", isoYear(s));
      case TIMESTAMP -> new ExpectedCell("text", isoYear(s).replaceFirst(" ", "T"));
      case TIMESTAMPTZ -> new ExpectedCell("text", utc(isoYear(s).replaceFirst(" ", "T")));
      case TIMETZ -> new ExpectedCell("text", utc(s));
      default -> new ExpectedCell("text", s);
    };
  }

  /** The replica's cell: {@code typeof(col)} at {@code index}, the value at {@code index + 1}. */
  static ExpectedCell fromReplica(Kind kind, ResultSet rs, int index) throws SQLException {
    String type = rs.getString(index);
    return switch (type) {
      case "null" -> NULL;
      case "integer" -> new ExpectedCell(type, Long.toString(rs.getLong(index + 1)));
      case "real" -> new ExpectedCell(type, Double.toString(rs.getDouble(index + 1)));
      case "blob" -> new ExpectedCell(type, HexFormat.of().formatHex(rs.getBytes(index + 1)));
      default -> new ExpectedCell(type, kind.array() ? canonicalArray(rs.getString(index + 1), kind.scalar())
          : rs.getString(index + 1));
    };
  }

  private static final java.util.regex.Pattern BC = java.util.regex.Pattern.compile("^(\\d+)(-.*) BC$");

  /** Postgres' {@code YYYY-... BC} as an ISO 8601 astronomical year (1 BC = 0, 2 BC = -1). */
  private static String isoYear(String s) {
    java.util.regex.Matcher m = BC.matcher(s);
    if (!m.matches()) {
      return s;
    }
    long year = 1 - Long.parseLong(m.group(1));
    return (year < 0 ? "-" : "") + String.format(Locale.ROOT, "%04d", Math.abs(year)) + m.group(2);
  }

  private static String utc(String s) {
    return s.replaceFirst("\\+00(:00)?$", "Z");
  }

  private static final java.util.regex.Pattern TIME_WITH_OFFSET =
      java.util.regex.Pattern.compile("^(\\d\\d):(\\d\\d):(\\d\\d)(\\.\\d+)?([+-])(\\d\\d)(?::(\\d\\d))?(?::(\\d\\d))?$");

  /** A timetz as {@code to_json} prints it ({@code 03:04:05.5-05:30}) moved to UTC on the 24-hour clock. */
  private static String timetzUtc(String s) {
    java.util.regex.Matcher m = TIME_WITH_OFFSET.matcher(s);
    if (!m.matches()) {
      return s;
    }
    int offset = Integer.parseInt(m.group(6)) * 3600 + (m.group(7) == null ? 0 : Integer.parseInt(m.group(7)) * 60)
        + (m.group(8) == null ? 0 : Integer.parseInt(m.group(8)));
    int second = Integer.parseInt(m.group(1)) * 3600 + Integer.parseInt(m.group(2)) * 60 + Integer.parseInt(m.group(3))
        - ("-".equals(m.group(5)) ? -offset : offset);
    second = Math.floorMod(second, 86_400);
    return String.format(Locale.ROOT, "%02d:%02d:%02d", second / 3600, second / 60 % 60, second % 60)
        + (m.group(4) == null ? "" : m.group(4)) + "Z";
  }

  /**
   * A JSON array in one canonical text, with elements as the change log carries them: numeric
   * elements as exact decimal strings, float elements as doubles, timestamptz in the UTC form.
   * Postgres' {@code to_json} text and the replica's text of the same array give the same result.
   * Text that is not JSON is returned unchanged (and so differs).
   */
  static String canonicalArray(String json, Scalar element) {
    try {
      return JSON.writeValueAsString(normalise(JSON.readTree(json), element));
    } catch (JsonProcessingException e) {
      return json;
    }
  }

  private static JsonNode normalise(JsonNode n, Scalar element) {
    JsonNodeFactory f = JsonNodeFactory.withExactBigDecimals(true);
    if (n.isArray()) {
      ArrayNode out = f.arrayNode();
      n.forEach(e -> out.add(normalise(e, element)));
      return out;
    }
    if (n.isNumber()) {
      return switch (element) {
        case NUMERIC -> f.textNode(n.decimalValue().toPlainString());
        case FLOAT -> f.textNode(Double.toString(n.doubleValue()));
        case INT -> f.numberNode(n.bigIntegerValue());
        default -> n;
      };
    }
    if (n.isTextual()) {
      return switch (element) {
        case DATE -> f.textNode(isoYear(n.textValue()));
        case TIMESTAMP -> f.textNode(isoYear(n.textValue()).replaceFirst(" ", "T"));
        case TIMESTAMPTZ -> f.textNode(utc(isoYear(n.textValue()).replaceFirst(" ", "T")));
        case TIMETZ -> f.textNode(timetzUtc(n.textValue()));
        default -> n;
      };
    }
    return n;
  }

  @Override
  public String toString() {
    if (text == null) {
      return "NULL";
    }
    String shown = text.length() <= 120 ? text : text.substring(0, 60) + "…(" + text.length() + " chars)…"
        + text.substring(text.length() - 20);
    return storage + " " + ("text".equals(storage) ? "'" + shown.replace("\n", "\\n") + "'" : shown);
  }
}
