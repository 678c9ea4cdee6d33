package io.pg2lite.source.schema;

import io.pg2lite.protocol.schema.QualifiedName;

/**
 * Whether a column's values are still being copied by a backfill as of the log's end: a replica
 * then holds NULL in the rows the copy has not reached, and cannot key rows on it. A schema
 * change that makes such a column part of the row key is sent as a copy of the whole table
 * ({@link SchemaDiff}).
 */
@FunctionalInterface
public interface CopyingColumns {
  CopyingColumns NONE = (table, column) -> false;

  boolean copying(QualifiedName table, String column);
}
