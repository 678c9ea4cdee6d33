package io.pg2lite.protocol.schema;

import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The syntax of a constant column default, without its meaning: one SQL literal, optionally cast,
 * the way {@code pg_get_expr} prints a constant ({@code 'abc'::text}, {@code 42}, {@code 1.5},
 * {@code (-1)::bigint}, {@code '-1'::integer}, {@code true::boolean}, {@code '{a,b}'::text[]},
 * {@code NULL}) and the way the wire form of {@code ColumnSpec.dflt} writes it (the same literals,
 * never cast). {@link ConstantDefault} decides what a literal means for a column type.
 *
 * <p>Anything else (a function call, an operator, a nested cast such as
 * {@code ('-1'::integer)::text}, {@code E'...'} strings) is not a literal: such a default is
 * computed by Postgres, and only a backfill can copy what it computed.
 *
 * @param kind what the literal is
 * @param text a string's content with {@code ''} undone, a number's text without parentheses,
 *     {@code true} or {@code false}, or {@code NULL}
 * @param cast the type name after {@code ::}, or null
 * @param parenthesized whether a number stood in parentheses: Postgres prints an explicit cast
 *     of a typed constant that way ({@code (1.7)::integer}), and such a cast is not folded into
 *     the number (see {@link CatalogCasts})
 */
record DefaultLiteral(Kind kind, String text, String cast, boolean parenthesized) {
  enum Kind { STRING, NUMBER, BOOLEAN, NULL }

  /** {@code ::type}: the characters of a type name as format_type prints one (no commas: no {@code numeric(10,2)}). */
  private static final String CAST = "(?:::([A-Za-z0-9_ \"\\[\\]().]+))?";
  private static final String NUMBER_TEXT = "-?[0-9]+(?:\\.[0-9]+)?(?:[eE][-+]?[0-9]+)?";
  private static final Pattern STRING = Pattern.compile("'((?:[^']|'')*)'" + CAST);
  private static final Pattern NUMBER = Pattern.compile("(?:\\((" + NUMBER_TEXT + ")\\)|(" + NUMBER_TEXT + "))" + CAST);
  private static final Pattern BOOLEAN = Pattern.compile("(true|false)" + CAST);
  private static final Pattern NULL = Pattern.compile("(?i:NULL)" + CAST);

  /** The literal of {@code expr}, or null when it is not one literal. */
  static DefaultLiteral of(String expr) {
    String s = expr.trim();
    Matcher m;
    if ((m = STRING.matcher(s)).matches()) {
      return new DefaultLiteral(Kind.STRING, m.group(1).replace("''", "'"), m.group(2), false);
    }
    if ((m = NUMBER.matcher(s)).matches()) {
      boolean parenthesized = m.group(1) != null;
      return new DefaultLiteral(Kind.NUMBER, parenthesized ? m.group(1) : m.group(2), m.group(3), parenthesized);
    }
    if ((m = BOOLEAN.matcher(s)).matches()) {
      return new DefaultLiteral(Kind.BOOLEAN, m.group(1), m.group(2), false);
    }
    if ((m = NULL.matcher(s)).matches()) {
      return new DefaultLiteral(Kind.NULL, "NULL", m.group(1), false);
    }
    return null;
  }

  /** {@code s} as one single-quoted SQL string ({@code '} doubled), the way {@link #of} reads it back. */
  static String quote(String s) {
    return "'" + s.replace("'", "''") + "'";
  }
}
