package io.pg2lite.replica.lite;

import io.pg2lite.protocol.schema.ColumnSpec;
import io.pg2lite.protocol.stored.ReplicaStorage;

/**
 * The declared SQLite type of a replicated column: the Postgres type name, with a suffix that
 * fixes SQLite's type affinity where the name alone would pick a lossy one. SQLite derives
 * affinity from the declared name ("INT" → INTEGER, "CHAR"/"TEXT" → TEXT, "REAL"/"FLOA"/"DOUB" →
 * REAL, else NUMERIC); NUMERIC affinity would turn the exact decimal text "1.10" into the real
 * 1.1, and jsonb text "1" into the integer 1. So every type stored as text gets "|TEXT".
 * Except one whose name contains "int" (interval, point, int2vector, an enum named
 * "print_state"): SQLite looks for "INT" before anything else, anywhere in the declared type, so
 * "print_state|TEXT" would still have INTEGER affinity and store the label '1' as the integer 1.
 * Such a column is declared plain "TEXT" (its Postgres type is in {@code _pg2lite.columns}).
 * Arrays keep their name: their JSON text never reads as a number.
 * Each storage's values are {@link ReplicaStorage}'s; the mapping table is in docs/type-mapping.md.
 */
public final class LiteTypes {
  private LiteTypes() {}

  public static String declared(ColumnSpec spec) {
    switch (ReplicaStorage.of(spec)) {
      case INTEGER:
        return spec.dataType() + "|INTEGER";
      case REAL:
        return spec.dataType() + "|REAL";
      case BOOLEAN:
        return spec.dataType() + "|INTEGER";
      case BLOB:
        return spec.dataType() + "|BLOB";
      default:
        String name = spec.dataType();
        boolean integerAffinity = name.toUpperCase(java.util.Locale.ROOT).contains("INT") && !name.endsWith("[]");
        return integerAffinity ? "TEXT" : name + "|TEXT";
    }
  }
}
