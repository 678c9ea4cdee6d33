package io.pg2lite.source.schema;

import io.pg2lite.protocol.value.ArrayLiteral;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Decides whether a column default can be written into a SQLite schema. Only constants can: a
 * volatile default ({@code now()}, {@code gen_random_uuid()}, {@code nextval(...)}) gives every
 * existing row its own value in Postgres, which only a backfill can copy.
 *
 * <p>An array constant ({@code '{a,"b c",NULL}'::text[]}) can only when the sink can turn its
 * Postgres text into the value the live stream would carry for it ({@link ArrayLiteral}), so the
 * replica stores the default exactly as it stores the same array written later. Other array
 * defaults are backfilled, which copies each row's value in the live stream's form.
 */
final class SqliteDefaults {
  /** A quoted string, a number or a boolean, optionally cast: {@code 'abc'::text}, {@code 42}, {@code (-1)::bigint}. */
  private static final Pattern CONSTANT = Pattern.compile(
      "^(?:'(?:[^']|'')*'|\\(?-?[0-9]+(?:\\.[0-9]+)?(?:[eE][-+]?[0-9]+)?\\)?|true|false)(?:::[a-z0-9_ \"\\[\\]().]+)?$");
  private static final Pattern QUOTED = Pattern.compile("^'((?:[^']|'')*)'(?:::.*)?$");

  /**
   * Scalar types whose constant, as {@code pg_get_expr} prints it, is the value the live stream
   * carries (the sink writes it as the SQLite default): numbers, booleans, text, and enum labels.
   * Any other type's literal differs from the log's form: bytea {@code '\\x'} is bytes in the
   * log, timestamps and times print in the session's zone without the {@code T}, intervals in
   * the session's style, jsonb and uuid normalise their text, {@code char(n)} pads. Such a
   * default is backfilled, which copies each row's value exactly (fuzz seed 3000:
   * {@code ADD COLUMN b bytea DEFAULT '\\x'} read as the text {@code \\x}).
   */
  private static final java.util.Set<String> TEXT_IS_LOG_FORM = java.util.Set.of(
      "int2", "int4", "int8", "float4", "float8", "numeric", "bool", "text", "varchar");

  private static final java.util.Set<String> INTEGERS = java.util.Set.of("int2", "int4", "int8");
  /** An integer constant, optionally parenthesised, quoted or cast: {@code 7}, {@code (-1)::bigint}, {@code '7'::integer}. */
  private static final Pattern INTEGER = Pattern.compile("^(?:\\(?-?[0-9]+\\)?|'-?[0-9]+')(?:::[a-z0-9_ ]+)?$");

  private SqliteDefaults() {}

  /** Whether the default of column {@code c} can be a SQLite default (else the column is backfilled). */
  static boolean canExpress(PublishedSchema.Column c) {
    String dflt = c.dflt();
    if (dflt == null || "NULL".equalsIgnoreCase(dflt)) {
      return true;
    }
    if (!c.dataType().endsWith("[]")) {
      if (INTEGERS.contains(c.dataType()) && !INTEGER.matcher(dflt.trim()).matches()) {
        return false; // DEFAULT 1.7 on an int column: Postgres stores 2, SQLite would keep 1.7
      }
      if (c.dataType().equals("numeric") && c.typmod() != -1) {
        return false; // numeric(10,2) DEFAULT 1.5: Postgres stores 1.50
      }
      return TEXT_IS_LOG_FORM.contains(c.dataType()) || "e".equals(c.typeClass()) ? canExpress(dflt) : false;
    }
    Matcher q = QUOTED.matcher(dflt.trim());
    String element = c.dataType().substring(0, c.dataType().indexOf('['));
    if (!q.matches() || !CONSTANT.matcher(dflt.trim()).matches()
        || !ArrayLiteral.supports(element, c.elemTypeClass())) {
      return false;
    }
    try {
      ArrayLiteral.parse(q.group(1).replace("''", "'"), element, c.elemTypeClass());
      return true;
    } catch (IllegalArgumentException e) {
      return false; // e.g. explicit bounds '[0:1]={1,2}': the backfill copies what Postgres holds
    }
  }

  /** Whether a scalar column's default expression is a constant. */
  static boolean canExpress(String dflt) {
    return dflt == null || "NULL".equalsIgnoreCase(dflt) || CONSTANT.matcher(dflt.trim()).matches();
  }
}
