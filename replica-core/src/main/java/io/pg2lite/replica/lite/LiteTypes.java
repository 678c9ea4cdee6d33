package io.pg2lite.replica.lite;

import io.pg2lite.protocol.schema.ColumnSpec;

/**
 * The declared SQLite type of a replicated column: the Postgres type name, with a suffix that
 * fixes SQLite's type affinity where the name alone would pick a lossy one. SQLite derives
 * affinity from the declared name ("INT" → INTEGER, "CHAR"/"TEXT" → TEXT, "REAL"/"FLOA"/"DOUB" →
 * REAL, else NUMERIC); NUMERIC affinity would turn the exact decimal text "1.10" into the real
 * 1.1, and jsonb text "1" into the integer 1. So every type stored as text gets "|TEXT".
 * The mapping table is in docs/type-mapping.md.
 */
public final class LiteTypes {
  private LiteTypes() {}

  public enum Storage { INTEGER, REAL, BOOLEAN, BLOB, TEXT }

  public static Storage storage(ColumnSpec spec) {
    String t = spec.dataType();
    if (t.endsWith("[]")) {
      return Storage.TEXT;
    }
    switch (t) {
      case "int2":
      case "int4":
      case "int8":
      case "oid":
        return Storage.INTEGER;
      case "float4":
      case "float8":
        return Storage.REAL;
      case "bool":
        return Storage.BOOLEAN;
      case "bytea":
        return Storage.BLOB;
      default:
        return Storage.TEXT;
    }
  }

  public static String declared(ColumnSpec spec) {
    switch (storage(spec)) {
      case INTEGER:
        return spec.dataType() + "|INTEGER";
      case REAL:
        return spec.dataType() + "|REAL";
      case BOOLEAN:
        return spec.dataType() + "|INTEGER";
      case BLOB:
        return spec.dataType() + "|BLOB";
      default:
        return spec.dataType() + "|TEXT";
    }
  }
}
