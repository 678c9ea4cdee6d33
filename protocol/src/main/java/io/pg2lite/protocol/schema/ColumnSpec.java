package io.pg2lite.protocol.schema;

import java.util.Objects;

/**
 * An upstream column's type and constraints, as the source read them from the catalog.
 *
 * @param pos the Postgres attnum; stable across renames, so the source diffs columns by it
 * @param dataType the Postgres type name, with "[]" per array dimension (e.g. {@code int8[]})
 * @param pgTypeClass pg_type.typtype ("b" base, "e" enum, "d" domain, ...), or null
 * @param elemPgTypeClass the element type's typtype for arrays, or null
 * @param characterMaximumLength varchar(n)/char(n) length, or null
 * @param notNull whether the column is NOT NULL, or null when unknown
 * @param dflt the default when it is a constant the replica can take, in the wire form of
 *     {@link ConstantDefault} ({@code 'abc'}, {@code -1}, {@code true}); older sources sent
 *     pg_get_expr's text ({@code 'abc'::text}), which {@link ConstantDefault#valueOf} reads too.
 *     Null when there is none, when it is not such a constant and when the column is backfilled
 *     (the backfill, not the default, supplies existing rows' values)
 */
public record ColumnSpec(
    int pos,
    String dataType,
    String pgTypeClass,
    String elemPgTypeClass,
    Integer characterMaximumLength,
    Boolean notNull,
    String dflt) {
  public ColumnSpec {
    Objects.requireNonNull(dataType, "dataType");
  }

  /** A column spec with only position and type. */
  public static ColumnSpec of(int pos, String dataType) {
    return new ColumnSpec(pos, dataType, null, null, null, null, null);
  }

  public ColumnSpec withDflt(String dflt) {
    return new ColumnSpec(pos, dataType, pgTypeClass, elemPgTypeClass, characterMaximumLength, notNull, dflt);
  }
}
