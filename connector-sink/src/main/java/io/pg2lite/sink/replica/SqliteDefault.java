package io.pg2lite.sink.replica;

import io.pg2lite.protocol.schema.ColumnSpec;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The SQLite default for an added column whose Postgres default is a constant, so existing rows
 * get the value Postgres gave them. The source sends a default only when it is a constant;
 * others are backfilled instead.
 */
final class SqliteDefault {
  private static final Pattern QUOTED = Pattern.compile("^'((?:[^']|'')*)'(?:::.*)?$");
  private static final Pattern NUMBER = Pattern.compile("^\\(?(-?[0-9]+(?:\\.[0-9]+)?(?:[eE][-+]?[0-9]+)?)\\)?(?:::.*)?$");

  private SqliteDefault() {}

  /** The SQL literal, or null when there is no default. */
  static String of(ColumnSpec spec) {
    String d = spec.dflt();
    if (d == null || d.equalsIgnoreCase("NULL")) {
      return null;
    }
    d = d.trim();
    if (d.equals("true") || d.equals("false")) {
      return d.equals("true") ? "1" : "0";
    }
    Matcher q = QUOTED.matcher(d);
    if (q.matches()) {
      return "'" + q.group(1) + "'";
    }
    Matcher n = NUMBER.matcher(d);
    if (n.matches()) {
      return LiteTypes.storage(spec) == LiteTypes.Storage.TEXT ? "'" + n.group(1) + "'" : n.group(1);
    }
    throw new IllegalArgumentException("default " + d + " of a " + spec.dataType() + " column is not a constant the "
        + "replica can express (the source should have backfilled it)");
  }
}
