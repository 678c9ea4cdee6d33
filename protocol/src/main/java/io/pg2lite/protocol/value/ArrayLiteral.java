package io.pg2lite.protocol.value;

import java.util.ArrayList;
import java.util.List;

/**
 * A Postgres array in Postgres' text form ({@code {a,"b c",NULL}}, {@code {{1,2},{3,4}}}) read as
 * the change log's value of that array: nested {@link Value.Array}s, one level per dimension,
 * each element read by its type's {@link TextForm}. The live stream reads every array a pgoutput
 * tuple carries this way and a backfill copy every array it selects, so both paths share one
 * reading (issue 32).
 *
 * <p>Constant defaults of array columns ({@code io.pg2lite.protocol.schema.ConstantDefault}) are
 * read here too, but only for element types whose constant, as {@code pg_get_expr} prints it in
 * any session, is the log value ({@link #supports}): integers, floats, booleans, numeric and
 * text-like types. Dates and times print in the session's zone and style, bytea and json
 * normalise: a default of such an array is backfilled instead. The sink stores exactly the value
 * read here, so rows that got the default and rows written later hold the same text.
 *
 * <p>Text syntax: elements separated by commas, nested braces for more dimensions, double-quoted
 * elements with backslash escapes, unquoted {@code NULL} for a null element, whitespace around
 * elements ignored. Explicit bounds ({@code [0:1]={1,2}}, printed for a lower bound other than 1)
 * are read past: a JSON array has no bounds, so the log carries the elements only, as
 * {@code array_to_json} does (docs/type-mapping.md).
 */
public final class ArrayLiteral {
  private final String s;
  private final TextForm element;
  private int i;

  private ArrayLiteral(String s, TextForm element) {
    this.s = s;
    this.element = element;
  }

  /**
   * Whether arrays of {@code elementType} (a Postgres type name without "[]"; {@code elemTypeClass}
   * is the element type's typtype, "e" for enums) can be read from their text.
   */
  public static boolean supports(String elementType, String elemTypeClass) {
    return kind(elementType, elemTypeClass) != null;
  }

  /**
   * The array value of a constant default {@code text} for elements of {@code elementType}.
   *
   * @throws IllegalArgumentException when the type is not {@link #supports supported} or the
   *     text is not an array
   */
  public static Value.Array parse(String text, String elementType, String elemTypeClass) {
    TextForm kind = kind(elementType, elemTypeClass);
    if (kind == null) {
      throw new IllegalArgumentException("arrays of " + elementType + " cannot be read from their text exactly");
    }
    if (text.startsWith("[")) {
      // a default with bounds is backfilled: the sink could not give it the same bounds anyway
      throw new IllegalArgumentException("array text " + text + ": explicit bounds in a constant default");
    }
    return parse(text, kind);
  }

  /**
   * The array value of {@code text}, an array as Postgres printed it, whose elements have the
   * form {@code element}.
   *
   * @throws IllegalArgumentException when the text is not an array of such elements
   */
  public static Value.Array parse(String text, TextForm element) {
    ArrayLiteral p = new ArrayLiteral(text, element);
    p.skipSpace();
    p.skipBounds();
    Value.Array out = p.array();
    p.skipSpace();
    if (p.i != text.length()) {
      throw p.error("text after the array");
    }
    return out;
  }

  /**
   * {@code array}, a value {@link #parse} gave for elements of {@code elementType}, as Postgres
   * array text that {@link #parse} reads back as the same value: text elements always quoted
   * (so the text {@code NULL} stays text), floats in Java's shortest exact form (a float4 as the
   * float it widened from), NULL unquoted.
   */
  public static String text(Value.Array array, String elementType, String elemTypeClass) {
    TextForm kind = kind(elementType, elemTypeClass);
    if (kind == null) {
      throw new IllegalArgumentException("arrays of " + elementType + " cannot be read from their text exactly");
    }
    StringBuilder sb = new StringBuilder();
    write(sb, array, kind);
    return sb.toString();
  }

  private static void write(StringBuilder sb, Value.Array array, TextForm kind) {
    sb.append('{');
    for (int n = 0; n < array.elements().size(); n++) {
      Value e = array.elements().get(n);
      sb.append(n > 0 ? "," : "");
      if (e instanceof Value.Array a) {
        write(sb, a, kind);
      } else if (e instanceof Value.Null) {
        sb.append("NULL");
      } else if (e instanceof Value.Int i) {
        sb.append(i.value());
      } else if (e instanceof Value.Float f) {
        sb.append(kind == TextForm.FLOAT4 ? Float.toString((float) f.value()) : Double.toString(f.value()));
      } else if (e instanceof Value.Bool b) {
        sb.append(b.value());
      } else {
        String t = ((Value.Text) e).value();
        sb.append('"').append(t.replace("\\", "\\\\").replace("\"", "\\\"")).append('"');
      }
    }
    sb.append('}');
  }

  /** The form of a default's elements, null for types whose constants are not the log value. */
  private static TextForm kind(String type, String typeClass) {
    if ("e".equals(typeClass)) {
      return TextForm.AS_PRINTED;
    }
    switch (type) {
      case "int2":
      case "int4":
      case "int8":
      case "oid":
        return TextForm.INT;
      case "float4":
        return TextForm.FLOAT4;
      case "float8":
        return TextForm.FLOAT8;
      case "bool":
        return TextForm.BOOL;
      case "numeric":
      case "text":
      case "varchar":
      case "name":
      case "citext":
      case "uuid":
        return TextForm.AS_PRINTED;
      default:
        return null; // bpchar pads to its length; dates, times, bytea, json... print differently
    }
  }

  private Value.Array array() {
    expect('{');
    List<Value> out = new ArrayList<>();
    skipSpace();
    if (peek() == '}') {
      i++;
      return new Value.Array(out);
    }
    while (true) {
      skipSpace();
      out.add(peek() == '{' ? array() : element());
      skipSpace();
      char c = next();
      if (c == '}') {
        return new Value.Array(out);
      }
      if (c != ',') {
        throw error("expected ',' or '}'");
      }
    }
  }

  private Value element() {
    StringBuilder sb = new StringBuilder();
    if (peek() == '"') {
      i++;
      while (true) {
        char c = next();
        if (c == '"') {
          return value(sb.toString());
        }
        sb.append(c == '\\' ? next() : c);
      }
    }
    boolean escaped = false;
    while (peek() != ',' && peek() != '}') {
      char c = next();
      if (c == '{' || c == '"') {
        throw error("unexpected '" + c + "' in an unquoted element");
      }
      if (c == '\\') {
        escaped = true;
        c = next();
      }
      sb.append(c);
    }
    String raw = sb.toString().strip();
    if (raw.isEmpty()) {
      throw error("empty element");
    }
    return !escaped && raw.equalsIgnoreCase("NULL") ? Value.NULL : value(raw);
  }

  /** An element's text as the change log writes the element type. */
  private Value value(String text) {
    try {
      return element.read(text);
    } catch (IllegalArgumentException e) {
      throw error(e.getMessage());
    }
  }

  /** Explicit bounds, {@code [lo:hi][lo:hi]=}, before the braces: read past (see the class comment). */
  private void skipBounds() {
    if (i < s.length() && s.charAt(i) == '[') {
      int eq = s.indexOf('=', i);
      if (eq < 0) {
        throw error("bounds without '='");
      }
      i = eq + 1;
    }
  }

  private void skipSpace() {
    while (i < s.length() && Character.isWhitespace(s.charAt(i))) {
      i++;
    }
  }

  private char peek() {
    if (i >= s.length()) {
      throw error("unterminated array");
    }
    return s.charAt(i);
  }

  private char next() {
    char c = peek();
    i++;
    return c;
  }

  private void expect(char c) {
    if (next() != c) {
      throw error("expected '" + c + "'");
    }
  }

  private IllegalArgumentException error(String what) {
    return new IllegalArgumentException("array text " + s + ": " + what + " at " + i);
  }
}
