package io.pg2lite.source.schema;

import java.util.regex.Pattern;

/**
 * Decides whether a column default can be written into a SQLite schema. Only constants can: a
 * volatile default ({@code now()}, {@code gen_random_uuid()}, {@code nextval(...)}) gives every
 * existing row its own value in Postgres, which only a backfill can copy.
 */
final class SqliteDefaults {
  /** A quoted string, a number or a boolean, optionally cast: {@code 'abc'::text}, {@code 42}, {@code (-1)::bigint}. */
  private static final Pattern CONSTANT = Pattern.compile(
      "^(?:'(?:[^']|'')*'|\\(?-?[0-9]+(?:\\.[0-9]+)?(?:[eE][-+]?[0-9]+)?\\)?|true|false)(?:::[a-z0-9_ \"\\[\\]().]+)?$");

  private SqliteDefaults() {}

  static boolean canExpress(String dflt) {
    return dflt == null || "NULL".equalsIgnoreCase(dflt) || CONSTANT.matcher(dflt.trim()).matches();
  }
}
