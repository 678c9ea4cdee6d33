package io.pg2lite.replica.schema;

import io.pg2lite.protocol.schema.ColumnSpec;
import io.pg2lite.protocol.schema.ConstantDefault;
import io.pg2lite.protocol.stored.StoredForm;
import io.pg2lite.protocol.value.Value;
import io.pg2lite.replica.lite.LiteValues;

/**
 * The SQLite default of an added column whose Postgres default is a constant, so existing rows
 * get the value Postgres gave them. Which defaults are constants, and their values, is the
 * protocol's rule ({@link ConstantDefault}); this class only writes the value as SQL.
 *
 * <p>Invariant: the default is stored in the form the live stream stores the same value
 * ({@link LiteValues}), so rows that got the default when the column was added read exactly like
 * rows written later: a boolean as 1/0, an array as the JSON text of its elements, a float
 * column's -0 as the text {@value StoredForm#NEGATIVE_ZERO} and NaN and infinities as text, a
 * float4 constant as the double its float widens to (the value already is that double).
 */
final class SqliteDefault {
  private SqliteDefault() {}

  /**
   * The SQL literal, or null when there is no default.
   *
   * @throws IllegalArgumentException naming the column, its type and the default when the
   *     protocol's rule refuses it
   */
  static String of(String column, ColumnSpec spec) {
    Value v = ConstantDefault.valueOf(column, spec);
    if (v instanceof Value.Null) {
      return null;
    } else if (v instanceof Value.Bool b) {
      return b.value() ? "1" : "0";
    } else if (v instanceof Value.Int i) {
      return Long.toString(i.value());
    } else if (v instanceof Value.Float f) {
      return StoredForm.isNegativeZero(f.value()) ? text(StoredForm.NEGATIVE_ZERO) : Double.toString(f.value());
    } else if (v instanceof Value.Text t) {
      return text(t.value());
    } else if (v instanceof Value.Array a) {
      return text(StoredForm.arrayJson(a));
    }
    throw new IllegalStateException("unhandled default value " + v);
  }

  private static String text(String s) {
    return "'" + s.replace("'", "''") + "'";
  }
}
