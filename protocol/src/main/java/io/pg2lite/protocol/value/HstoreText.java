package io.pg2lite.protocol.value;

import com.fasterxml.jackson.core.io.JsonStringEncoder;

/**
 * An {@code hstore} as Postgres prints it ({@code "a"=>"1", "b c"=>NULL}) in the log's form: the
 * JSON object text Postgres' own {@code hstore_to_json} prints ({@code {"a": "1", "b c": null}}),
 * pairs in the hstore's order. The live stream (the text pgoutput sent) and a backfill copy (the
 * value selected as text) both read it here, so the replica holds one text per value.
 */
final class HstoreText {
  private final String s;
  private int i;

  private HstoreText(String s) {
    this.s = s;
  }

  static String toJson(String hstore) {
    return new HstoreText(hstore).json();
  }

  private String json() {
    StringBuilder out = new StringBuilder("{");
    skipSpace();
    boolean first = true;
    while (i < s.length()) {
      if (!first) {
        expect(',');
        skipSpace();
        out.append(", ");
      }
      first = false;
      String key = quoted();
      skipSpace();
      expect('=');
      expect('>');
      skipSpace();
      out.append('"').append(JsonStringEncoder.getInstance().quoteAsString(key)).append("\": ");
      if (s.charAt(i) == '"') {
        out.append('"').append(JsonStringEncoder.getInstance().quoteAsString(quoted())).append('"');
      } else if (s.startsWith("NULL", i)) {
        i += 4;
        out.append("null");
      } else {
        throw new IllegalArgumentException("hstore value at " + i + " is neither quoted nor NULL");
      }
      skipSpace();
    }
    return out.append('}').toString();
  }

  /** A double-quoted string with backslash escapes, as hstore_out writes keys and values. */
  private String quoted() {
    expect('"');
    StringBuilder sb = new StringBuilder();
    while (true) {
      if (i >= s.length()) {
        throw new IllegalArgumentException("unterminated hstore string");
      }
      char c = s.charAt(i++);
      if (c == '"') {
        return sb.toString();
      }
      sb.append(c == '\\' ? s.charAt(i++) : c);
    }
  }

  private void expect(char c) {
    if (i >= s.length() || s.charAt(i) != c) {
      throw new IllegalArgumentException("expected '" + c + "' at " + i + " of an hstore");
    }
    i++;
  }

  private void skipSpace() {
    while (i < s.length() && s.charAt(i) == ' ') {
      i++;
    }
  }
}
