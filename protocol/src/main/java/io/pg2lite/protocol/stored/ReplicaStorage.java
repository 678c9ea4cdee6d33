package io.pg2lite.protocol.stored;

import io.pg2lite.protocol.schema.ColumnSpec;

/**
 * The SQLite storage class a replicated column's non-null values take, from its upstream type:
 * integers, floats, booleans (1/0) and bytea keep a class of their own, everything else is text
 * (arrays as JSON text). The names are stored in replicas' metadata: change none.
 */
public enum ReplicaStorage {
  INTEGER, REAL, BOOLEAN, BLOB, TEXT;

  public static ReplicaStorage of(ColumnSpec spec) {
    String t = spec.dataType();
    if (t.endsWith("[]")) {
      return TEXT;
    }
    switch (t) {
      case "int2":
      case "int4":
      case "int8":
      case "oid":
        return INTEGER;
      case "float4":
      case "float8":
        return REAL;
      case "bool":
        return BOOLEAN;
      case "bytea":
        return BLOB;
      default:
        return TEXT;
    }
  }
}
