package io.pg2lite.source.postgres;

/** Quoting of Postgres identifiers: every name pg2lite puts into SQL goes through here. */
public final class Identifiers {
  private Identifiers() {}

  /** {@code "name"} with embedded quotes doubled. */
  public static String quote(String name) {
    return '"' + name.replace("\"", "\"\"") + '"';
  }

  /**
   * Quotes {@code schema.table} (split at the first unquoted dot) or a bare {@code table}; parts
   * already in double quotes are taken verbatim.
   */
  public static String quoteQualified(String name) {
    String trimmed = name.trim();
    int dot = unquotedDot(trimmed);
    if (dot < 0) {
      return quote(unquote(trimmed));
    }
    return quote(unquote(trimmed.substring(0, dot))) + "." + quote(unquote(trimmed.substring(dot + 1)));
  }

  private static int unquotedDot(String s) {
    boolean quoted = false;
    for (int i = 0; i < s.length(); i++) {
      char ch = s.charAt(i);
      if (ch == '"') {
        quoted = !quoted;
      } else if (ch == '.' && !quoted) {
        return i;
      }
    }
    return -1;
  }

  private static String unquote(String s) {
    if (s.length() >= 2 && s.startsWith("\"") && s.endsWith("\"")) {
      return s.substring(1, s.length() - 1).replace("\"\"", "\"");
    }
    return s;
  }
}
