package io.pg2lite.protocol.value;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;

/**
 * A row image: column name to {@link Value}, in column order.
 *
 * <p>Absent and null differ: {@link #contains} is false for a column the change left out (an
 * unchanged TOASTed column of an update), while a SQL NULL is present as {@link Value#NULL}.
 * Immutable; built with {@link #builder()}, which hands its map over without copying, because
 * the sink decodes one row per data record on its hot path.
 */
public final class Row {
  private final Map<String, Value> values;

  private Row(Map<String, Value> values) {
    this.values = Collections.unmodifiableMap(values);
  }

  public static Builder builder() {
    return new Builder();
  }

  /** A row with the given column/value pairs, in order: {@code Row.of("id", Value.of(1))}. */
  public static Row of(Object... columnsAndValues) {
    if (columnsAndValues.length % 2 != 0) {
      throw new IllegalArgumentException("Row.of needs column/value pairs");
    }
    Builder b = builder();
    for (int i = 0; i < columnsAndValues.length; i += 2) {
      b.put((String) columnsAndValues[i], (Value) columnsAndValues[i + 1]);
    }
    return b.build();
  }

  /** Column names and values, in column order. */
  public Map<String, Value> values() {
    return values;
  }

  public boolean contains(String column) {
    return values.containsKey(column);
  }

  /** The value of {@code column}, or null when the column is absent (not SQL NULL). */
  public Value get(String column) {
    return values.get(column);
  }

  public int size() {
    return values.size();
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof Row r && r.values.equals(values);
  }

  @Override
  public int hashCode() {
    return values.hashCode();
  }

  @Override
  public String toString() {
    return values.toString();
  }

  /** Collects columns in insertion order; a column given twice is an error, never a silent overwrite. */
  public static final class Builder {
    private LinkedHashMap<String, Value> values = new LinkedHashMap<>();

    public Builder put(String column, Value value) {
      Objects.requireNonNull(column, "column");
      Objects.requireNonNull(value, "value (use Value.NULL for SQL NULL)");
      if (values.putIfAbsent(column, value) != null) {
        throw new IllegalArgumentException("column \"" + column + "\" given twice");
      }
      return this;
    }

    public Row build() {
      Row row = new Row(values);
      values = new LinkedHashMap<>();
      return row;
    }
  }
}
