package io.pg2lite.sink.replica;

import io.pg2lite.protocol.schema.ColumnSpec;
import io.pg2lite.protocol.value.ArrayLiteral;
import io.pg2lite.protocol.value.Value;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The SQLite default for an added column whose Postgres default is a constant, so existing rows
 * get the value Postgres gave them. The source sends a default only when it is a constant;
 * others are backfilled instead.
 *
 * <p>Invariant: the default is stored in the form the live stream stores the same value
 * ({@link LiteValues}), so rows that got the default when the column was added read exactly like
 * rows written later: an array constant ({@code '{a,"b c",NULL}'::text[]}) becomes the JSON text
 * of its elements ({@link ArrayLiteral}), a float column's {@code '-0'} the text
 * {@value LiteValues#NEGATIVE_ZERO}, a float4 constant the double its float widens to.
 */
final class SqliteDefault {
  private static final Pattern QUOTED = Pattern.compile("^'((?:[^']|'')*)'(?:::.*)?$");
  private static final Pattern BOOLEAN = Pattern.compile("^(true|false)(?:::[a-z ]+)?$");
  private static final Pattern NUMBER = Pattern.compile("^\\(?(-?[0-9]+(?:\\.[0-9]+)?(?:[eE][-+]?[0-9]+)?)\\)?(?:::.*)?$");

  private SqliteDefault() {}

  /** The SQL literal, or null when there is no default. */
  static String of(ColumnSpec spec) {
    String d = spec.dflt();
    if (d == null || d.equalsIgnoreCase("NULL")) {
      return null;
    }
    d = d.trim();
    if (spec.dataType().endsWith("[]")) {
      return array(spec, d);
    }
    Matcher bool = BOOLEAN.matcher(d);
    if (bool.matches()) {
      return bool.group(1).equals("true") ? "1" : "0";
    }
    Matcher q = QUOTED.matcher(d);
    Matcher n = NUMBER.matcher(d);
    if (LiteTypes.storage(spec) == LiteTypes.Storage.REAL && (q.matches() || n.matches())) {
      return real(spec, q.matches() ? q.group(1) : n.group(1));
    }
    if (q.matches()) {
      return "'" + q.group(1) + "'";
    }
    if (n.matches()) {
      return LiteTypes.storage(spec) == LiteTypes.Storage.TEXT ? "'" + n.group(1) + "'" : n.group(1);
    }
    throw notExpressible(spec, d);
  }

  /** An array constant as the JSON text the live stream stores for the same array. */
  private static String array(ColumnSpec spec, String d) {
    Matcher q = QUOTED.matcher(d);
    if (!q.matches()) {
      throw notExpressible(spec, d);
    }
    String element = spec.dataType().substring(0, spec.dataType().indexOf('['));
    Value.Array value;
    try {
      value = ArrayLiteral.parse(q.group(1).replace("''", "'"), element, spec.elemPgTypeClass());
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException(notExpressible(spec, d).getMessage() + ": " + e.getMessage(), e);
    }
    return text(LiteValues.arrayJson(value));
  }

  /** A float constant as the live stream stores it: REAL, or TEXT for NaN, infinities and -0. */
  private static String real(ColumnSpec spec, String literal) {
    double v;
    try {
      v = spec.dataType().equals("float4") ? Float.parseFloat(literal) : Double.parseDouble(literal);
    } catch (NumberFormatException e) {
      throw notExpressible(spec, literal);
    }
    if (!Double.isFinite(v)) {
      return text(Double.isNaN(v) ? "NaN" : v > 0 ? "Infinity" : "-Infinity");
    }
    return LiteValues.isNegativeZero(v) ? text(LiteValues.NEGATIVE_ZERO) : Double.toString(v);
  }

  private static String text(String s) {
    return "'" + s.replace("'", "''") + "'";
  }

  private static IllegalArgumentException notExpressible(ColumnSpec spec, String d) {
    return new IllegalArgumentException("default " + d + " of a " + spec.dataType() + " column is not a constant "
        + "the replica can express (the source should have backfilled it)");
  }
}
