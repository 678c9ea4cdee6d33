package io.pg2lite.protocol.stored;

import java.util.Arrays;
import java.util.Objects;

/**
 * One value as a replica holds it: SQLite's five storage classes. Equality is by content (a
 * BLOB's bytes too), so two replicas' values, or a replica's and the source's, compare as SQLite
 * would see them.
 */
public sealed interface StoredValue {
  Null NULL = new Null();

  record Null() implements StoredValue {}

  record Integer(long value) implements StoredValue {}

  /** A REAL; never NaN nor an infinity (SQLite stores those as NULL: the replica keeps them as text). */
  record Real(double value) implements StoredValue {}

  record Text(String value) implements StoredValue {
    public Text {
      Objects.requireNonNull(value, "text");
    }
  }

  record Blob(byte[] value) implements StoredValue {
    public Blob {
      Objects.requireNonNull(value, "blob");
    }

    @Override
    public boolean equals(Object o) {
      return o instanceof Blob b && Arrays.equals(value, b.value);
    }

    @Override
    public int hashCode() {
      return Arrays.hashCode(value);
    }

    @Override
    public String toString() {
      return "Blob[" + value.length + " bytes]";
    }
  }

  /**
   * What SQLite handed JDBC for a column ({@code ResultSet.getObject}): null, an Integer or Long,
   * a Double, a String or a byte[].
   *
   * @throws IllegalArgumentException for anything else
   */
  static StoredValue ofJdbc(Object o) {
    if (o == null) {
      return NULL;
    } else if (o instanceof java.lang.Integer i) {
      return new Integer(i);
    } else if (o instanceof Long l) {
      return new Integer(l);
    } else if (o instanceof Double d) {
      return new Real(d);
    } else if (o instanceof String s) {
      return new Text(s);
    } else if (o instanceof byte[] b) {
      return new Blob(b);
    }
    throw new IllegalArgumentException("not a SQLite value: " + o.getClass().getName());
  }
}
