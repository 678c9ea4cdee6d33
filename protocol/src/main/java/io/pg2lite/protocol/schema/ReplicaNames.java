package io.pg2lite.protocol.schema;

/**
 * The names of upstream tables and columns in a replica: one rule for the sink, the follower and
 * any reader of a replica (docs/protocol.md, "Replica names").
 *
 * <p>A table of schema {@code public} keeps its name; a table of another schema is named
 * {@code schema.name}. SQLite compares identifiers case-insensitively for ASCII letters, so two
 * upstream names that differ only in ASCII case, or that map to one name (a {@code public} table
 * named {@code "s1.t"} and table {@code t} of schema {@code s1}), would be one replica table: the
 * source admits the first and refuses the other, naming both ({@link #collisionKey} decides).
 * Names the replica keeps for itself ({@code _pg2lite.*} tables, the {@code _0_version} column)
 * and names SQLite refuses ({@code sqlite_*}) are refused too.
 */
public final class ReplicaNames {
  /** The prefix of the replica's own tables, which readers listing replicated tables skip. */
  public static final String INTERNAL_TABLE_PREFIX = "_pg2lite.";
  /** The replica's per-row version column. */
  public static final String ROW_VERSION_COLUMN = "_0_version";
  /** The suffix of the unique index the replica keeps on each table's row key ({@code <table>.pg2lite_row_key}). */
  public static final String KEY_INDEX_SUFFIX = ".pg2lite_row_key";

  private ReplicaNames() {}

  /** The replica table of an upstream table. */
  public static String table(QualifiedName upstream) {
    return "public".equals(upstream.schema()) ? upstream.name() : upstream.schema() + "." + upstream.name();
  }

  /** Two replica names are one SQLite identifier exactly when their keys are equal. */
  public static String collisionKey(String replicaName) {
    StringBuilder sb = new StringBuilder(replicaName.length());
    for (int i = 0; i < replicaName.length(); i++) {
      char c = replicaName.charAt(i);
      sb.append(c >= 'A' && c <= 'Z' ? (char) (c + ('a' - 'A')) : c); // ASCII only, as SQLite folds case
    }
    return sb.toString();
  }

  /** Why a replica table name cannot be used, or null when it can. */
  public static String reservedTable(String replicaName) {
    String key = collisionKey(replicaName);
    if (key.startsWith(INTERNAL_TABLE_PREFIX)) {
      return "names starting with " + INTERNAL_TABLE_PREFIX + " are the replica's own tables";
    }
    if (key.startsWith("sqlite_")) {
      return "SQLite reserves names starting with sqlite_";
    }
    if (key.endsWith(KEY_INDEX_SUFFIX)) {
      return "names ending in " + KEY_INDEX_SUFFIX + " are the replica's row-key indexes";
    }
    return null;
  }

  /** The replica's unique index on the row key of replica table {@code table}. */
  public static String keyIndex(String table) {
    return table + KEY_INDEX_SUFFIX;
  }

  /** Why a column name cannot be used in a replica table, or null when it can. */
  public static String reservedColumn(String column) {
    return collisionKey(column).equals(ROW_VERSION_COLUMN)
        ? ROW_VERSION_COLUMN + " is the replica's row version column" : null;
  }
}
