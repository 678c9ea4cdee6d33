package io.pg2lite.backfill.postgres;

/**
 * A column's type as the copy reads it: the type name (a domain's base type), and for arrays the
 * element type name.
 */
record ColumnType(String typeName, String elementTypeName) {
  boolean isArray() {
    return elementTypeName != null;
  }
}
