package io.pg2lite.protocol.schema;

import java.util.Set;

/**
 * Whether the cast of a catalog default ({@code pg_get_expr}'s text) may change the value the
 * column holds, so that the literal's own text is not the value. Only the source asks: it reads
 * the catalog, and the wire form it sends never carries a cast.
 *
 * <p>Postgres folds a cast of a quoted literal ({@code '7'::integer}) into the constant it prints,
 * but hides the implicit conversion from the constant's type to the column's type, and prints an
 * explicit cast of a typed constant with its operand in parentheses ({@code (1.7)::integer} is 2).
 * So a literal is taken at its word only when neither can change it: a float cast to another
 * float type ({@code '0.1'::real} in a float8 column is the widened 0.100000001490116…), a
 * non-integer cast to an integer type, a parenthesised number under a type modifier
 * ({@code (1.5)::numeric(5)} is 2) and {@code char(n)} (its padding goes when it becomes text)
 * are refused, and such a column is backfilled, which copies what Postgres stored.
 */
final class CatalogCasts {
  private static final Set<String> FLOATS = Set.of("real", "double precision");
  private static final Set<String> INTEGERS = Set.of("smallint", "integer", "bigint");
  private static final Set<String> PADDED = Set.of("character", "bpchar", "\"char\"");

  private CatalogCasts() {}

  /**
   * Whether {@code literal}'s cast may make the value differ from its text, for a column whose
   * (element) type is {@code baseType}, a Postgres type name such as {@code float8}.
   */
  static boolean mayChange(DefaultLiteral literal, String baseType) {
    if (literal.cast() == null) {
      return false;
    }
    String cast = literal.cast().trim();
    int modifier = cast.indexOf('(');
    if (modifier >= 0 && literal.parenthesized()) {
      return true;
    }
    String base = (modifier >= 0 ? cast.substring(0, modifier) : cast).replace("[]", "").trim();
    if (FLOATS.contains(base)) {
      return !base.equals(baseType.equals("float4") ? "real" : baseType.equals("float8") ? "double precision" : "");
    }
    if (INTEGERS.contains(base) && literal.parenthesized()) {
      return !literal.text().matches("-?[0-9]+"); // a quoted literal was parsed as the integer type: it is one
    }
    return PADDED.contains(base);
  }
}
