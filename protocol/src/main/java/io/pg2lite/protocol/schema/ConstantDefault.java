package io.pg2lite.protocol.schema;

import io.pg2lite.protocol.value.ArrayLiteral;
import io.pg2lite.protocol.value.Value;
import java.util.Set;

/**
 * The one rule for constant column defaults, shared by source and sink: which defaults a replica
 * can take as its own column default, what value each one is, and how {@link ColumnSpec#dflt()}
 * writes it.
 *
 * <p>Invariant: a default is a constant of the column's type only when its value is exactly the
 * change-log value the live stream carries for a row holding it (docs/type-mapping.md). Then rows
 * that got the default when the column was added and rows written later are stored alike. Any
 * other default (volatile such as {@code now()}, a type whose Postgres literal differs from its
 * log form, a value Postgres rounds) is refused, and the source backfills the column, which copies
 * each row's value exactly. If the source and the sink decided this with two rules, a default one
 * accepts and the other refuses would stop the sink (issue 11), and one they read differently
 * would make the replica diverge silently; hence one class.
 *
 * <p>The source calls {@link #wireForm} on the catalog's text ({@code pg_get_expr}); the sink
 * calls {@link #valueOf} on the received {@code dflt}, which reads the wire form and also the
 * {@code pg_get_expr} text that sources before this rule sent ({@code 'abc'::text},
 * {@code (-1)::bigint}, {@code true::boolean}). The wire form (docs/protocol.md, "Column
 * defaults"): {@code true}/{@code false}; an integer or a float as plain number text
 * ({@code -1}, {@code 1.5}, {@code 1.0E10}); a finite numeric as its exact decimal text
 * ({@code 1.50}); everything else as one single-quoted SQL string with {@code ''} for a quote:
 * text and enum labels ({@code 'it''s'}), NaN and infinities ({@code 'NaN'}), arrays as their
 * Postgres array text ({@code '{"a","b c",NULL}'}).
 */
public final class ConstantDefault {
  /** The column types whose constants are expressible (Kind), by Postgres type name. */
  private enum Kind { INTEGER, FLOAT4, FLOAT8, NUMERIC, BOOL, TEXT, ENUM, ARRAY }

  /** Exact decimal text as Postgres' numeric prints it: no exponent, no leading zeros, no -0. */
  private static final String NUMERIC_TEXT = "-?(?:0|[1-9][0-9]*)(?:\\.[0-9]+)?";
  /** A float as Postgres prints one ({@code 1e+300}, {@code -0}); not Java's extra forms ({@code 0x1p3}, {@code 1d}). */
  private static final String FLOAT_TEXT = "-?[0-9]+(?:\\.[0-9]+)?(?:[eE][-+]?[0-9]+)?";
  private static final Set<String> NON_FINITE = Set.of("NaN", "Infinity", "-Infinity");

  private ConstantDefault() {}

  /**
   * The {@code dflt} the source sends for a column whose catalog default is {@code expr}: the
   * wire form of the constant, or null when the column has no default, when the default is NULL
   * and when it is not a constant the replica can take ({@link #isConstant} tells these apart).
   *
   * @param typmod the column's atttypmod: numeric with a scale or precision rounds a literal
   *     ({@code numeric(10,2) DEFAULT 1.5} holds {@code 1.50}), which the text does not show,
   *     so only unconstrained numeric (-1) defaults are constants
   */
  public static String wireForm(String expr, ColumnSpec column, int typmod) {
    Value v = expr == null ? Value.NULL : catalogValue(expr, column, typmod);
    return v == null || v instanceof Value.Null ? null : format(v, column);
  }

  /** Whether the column's catalog default (null: none) lets the replica do without a backfill. */
  public static boolean isConstant(String expr, ColumnSpec column, int typmod) {
    return expr == null || catalogValue(expr, column, typmod) != null;
  }

  /**
   * The value of {@code column}'s received {@code dflt} ({@link Value#NULL} when it has none):
   * the wire form, or the {@code pg_get_expr} text older sources sent, whose cast is ignored
   * as those sinks ignored it.
   *
   * @throws IllegalArgumentException naming the column, its type and the default when the rule
   *     refuses it (a source following this rule backfills such a column instead)
   */
  public static Value valueOf(String columnName, ColumnSpec column) {
    if (column.dflt() == null) {
      return Value.NULL;
    }
    try {
      return read(literal(column.dflt()), column);
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException("column \"" + columnName + "\" (" + column.dataType() + "): default "
          + column.dflt() + " is not a constant the replica can store as the change log carries it ("
          + e.getMessage() + "); a pg2lite source backfills such a column instead", e);
    }
  }

  private static Value catalogValue(String expr, ColumnSpec column, int typmod) {
    if (typmod != -1 && baseType(column).equals("numeric")) {
      return null;
    }
    DefaultLiteral lit = DefaultLiteral.of(expr);
    if (lit == null || CatalogCasts.mayChange(lit, baseType(column))) {
      return null;
    }
    try {
      return read(lit, column);
    } catch (IllegalArgumentException e) {
      return null;
    }
  }

  private static DefaultLiteral literal(String text) {
    DefaultLiteral lit = DefaultLiteral.of(text);
    if (lit == null) {
      throw new IllegalArgumentException("not a single literal");
    }
    return lit;
  }

  /** The value of {@code lit} in a column of {@code column}'s type. */
  private static Value read(DefaultLiteral lit, ColumnSpec column) {
    if (lit.kind() == DefaultLiteral.Kind.NULL) {
      return Value.NULL;
    }
    String t = lit.text();
    boolean str = lit.kind() == DefaultLiteral.Kind.STRING;
    boolean num = lit.kind() == DefaultLiteral.Kind.NUMBER;
    switch (kind(column)) {
      case INTEGER:
        require((num || str) && t.matches("-?[0-9]+"), "not an integer");
        return new Value.Int(Long.parseLong(t));
      case FLOAT4:
      case FLOAT8:
        require(num || str && (t.matches(FLOAT_TEXT) || NON_FINITE.contains(t)), "not a float");
        double d = kind(column) == Kind.FLOAT4 ? Float.parseFloat(t) : Double.parseDouble(t);
        require(Double.isFinite(d) || NON_FINITE.contains(t), "out of the float's range");
        return Value.ofDouble(d);
      case NUMERIC:
        require((num || str) && isNumericText(t) || str && NON_FINITE.contains(t), "not a numeric as Postgres prints it");
        return new Value.Text(t);
      case BOOL:
        require(lit.kind() == DefaultLiteral.Kind.BOOLEAN, "not true or false");
        return new Value.Bool(t.equals("true"));
      case TEXT:
        require(str || num && isNumericText(t) || lit.kind() == DefaultLiteral.Kind.BOOLEAN, "not a string");
        return new Value.Text(t); // 7 and true in a text column: Postgres stored their text
      case ENUM:
        require(str, "not a label");
        return new Value.Text(t);
      default:
        require(str, "not a quoted array");
        return ArrayLiteral.parse(t, elementType(column), column.elemPgTypeClass());
    }
  }

  /** {@code v}, a value {@link #read} gave for {@code column}, in the wire form {@code read} reads back as it. */
  private static String format(Value v, ColumnSpec column) {
    Kind kind = kind(column);
    if (v instanceof Value.Bool b) {
      return Boolean.toString(b.value());
    } else if (v instanceof Value.Int i) {
      return Long.toString(i.value());
    } else if (v instanceof Value.Float f) {
      return kind == Kind.FLOAT4 ? Float.toString((float) f.value()) : Double.toString(f.value());
    } else if (v instanceof Value.Text t) {
      return kind == Kind.NUMERIC && !NON_FINITE.contains(t.value()) ? t.value() : DefaultLiteral.quote(t.value());
    } else if (v instanceof Value.Array a) {
      return DefaultLiteral.quote(ArrayLiteral.text(a, elementType(column), column.elemPgTypeClass()));
    }
    throw new IllegalStateException("no wire form for " + v);
  }

  /**
   * The kind of constants a column takes. Scalars only of types whose Postgres literal is the
   * change-log value: bytea {@code '\x'} is bytes in the log, times print in the session's zone
   * and style, jsonb and uuid normalise their text, {@code char(n)} pads (fuzz seed 3000); arrays
   * only of element types {@link ArrayLiteral} reads exactly. Others are backfilled.
   */
  private static Kind kind(ColumnSpec column) {
    if (column.dataType().endsWith("[]")) {
      require(ArrayLiteral.supports(elementType(column), column.elemPgTypeClass()),
          "arrays of " + elementType(column) + " print differently from the log");
      return Kind.ARRAY;
    }
    if ("e".equals(column.pgTypeClass())) {
      return Kind.ENUM;
    }
    switch (column.dataType()) {
      case "int2":
      case "int4":
      case "int8":
        return Kind.INTEGER; // DEFAULT 1.7 on an int column: Postgres stores 2, so only integer literals
      case "float4":
        return Kind.FLOAT4;
      case "float8":
        return Kind.FLOAT8;
      case "numeric":
        return Kind.NUMERIC;
      case "bool":
        return Kind.BOOL;
      case "text":
      case "varchar":
        return Kind.TEXT;
      default:
        throw new IllegalArgumentException(column.dataType() + " constants print differently from the log");
    }
  }

  private static boolean isNumericText(String t) {
    return t.matches(NUMERIC_TEXT) && !t.matches("-0(?:\\.0+)?");
  }

  private static String baseType(ColumnSpec column) {
    return column.dataType().endsWith("[]") ? elementType(column) : column.dataType();
  }

  private static String elementType(ColumnSpec column) {
    return column.dataType().substring(0, column.dataType().indexOf('['));
  }

  private static void require(boolean ok, String otherwise) {
    if (!ok) {
      throw new IllegalArgumentException(otherwise);
    }
  }
}
