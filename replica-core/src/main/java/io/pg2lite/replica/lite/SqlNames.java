package io.pg2lite.replica.lite;

import io.pg2lite.protocol.schema.QualifiedName;
import io.pg2lite.protocol.schema.ReplicaNames;

/**
 * Names on the replica. Every identifier in SQL goes through {@link #quote}: upstream names may
 * hold quotes, spaces, semicolons (a table named {@code a"b; DROP TABLE x} replicates as such).
 */
public final class SqlNames {
  private SqlNames() {}

  public static String quote(String identifier) {
    return '"' + identifier.replace("\"", "\"\"") + '"';
  }

  /** The replica table of an upstream table: the rule every reader shares ({@link ReplicaNames#table}). */
  public static String table(QualifiedName upstream) {
    return ReplicaNames.table(upstream);
  }

  public static String table(String schema, String name) {
    return table(new QualifiedName(schema, name));
  }

  /**
   * Where a table being copied whole keeps its rows until the copy completes. The prefix is the
   * replica's own ({@code _pg2lite.}), which readers listing replicated tables already skip.
   */
  public static String copying(String liteTable) {
    return "_pg2lite.copying." + liteTable;
  }

  /** The unique index the replica keeps on a table's row key. */
  public static String keyIndex(String liteTable) {
    return ReplicaNames.keyIndex(liteTable);
  }
}
