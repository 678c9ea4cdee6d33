package io.pg2lite.protocol.value;

import java.util.List;
import java.util.Objects;

/**
 * A column value as it travels in the change log: exactly the JSON data model, nothing more.
 *
 * <p>The Postgres type of a value is known from the column's spec, not from the value, so the
 * wire model only has to carry JSON losslessly: integers are 64-bit ({@code int8} beyond 2^53
 * stays exact), floats are finite doubles, and everything JSON cannot hold exactly travels as
 * {@link Text} (numeric, NaN and infinities, timestamps, json/jsonb text, bytea as hex, ...).
 * The per-type encoding is documented in {@code docs/type-mapping.md}.
 *
 * <p>A column that is absent from a {@link Row} is different from a column holding {@link #NULL}:
 * an update leaves out unchanged TOASTed columns, and the replica must keep their old values.
 */
public sealed interface Value {
  Null NULL = new Null();

  /** SQL NULL. */
  record Null() implements Value {
    @Override
    public String toString() {
      return "null";
    }
  }

  record Bool(boolean value) implements Value {}

  /** A 64-bit integer (int2, int4, int8, oid, ...). */
  record Int(long value) implements Value {}

  /** A finite 64-bit float. Non-finite floats travel as {@link Text} "NaN", "Infinity", "-Infinity". */
  record Float(double value) implements Value {
    public Float {
      if (!Double.isFinite(value)) {
        throw new IllegalArgumentException("JSON has no " + value
            + ": send non-finite floats as Text(\"NaN\"|\"Infinity\"|\"-Infinity\")");
      }
    }
  }

  record Text(String value) implements Value {
    public Text {
      Objects.requireNonNull(value, "text value");
    }
  }

  /** A Postgres array (arrays of arrays for more dimensions). */
  record Array(List<Value> elements) implements Value {
    public Array {
      elements = List.copyOf(elements);
    }
  }

  static Value of(long v) {
    return new Int(v);
  }

  static Value of(String v) {
    return v == null ? NULL : new Text(v);
  }

  static Value of(boolean v) {
    return new Bool(v);
  }

  /**
   * A float4/float8 value as the log carries it: a number, except NaN and ±Infinity, which JSON
   * numbers cannot hold and which the log spells as Postgres does. The one rule for the live
   * stream, the backfill copy and constant defaults.
   */
  static Value ofDouble(double d) {
    if (Double.isNaN(d)) {
      return new Text("NaN");
    }
    if (Double.isInfinite(d)) {
      return new Text(d > 0 ? "Infinity" : "-Infinity");
    }
    return new Float(d);
  }
}
