package io.pg2lite.protocol.value;

import java.util.ArrayList;
import java.util.List;

/**
 * A Postgres array constant in Postgres' text form ({@code {a,"b c",NULL}}, as {@code pg_get_expr}
 * prints a column default such as {@code '{a,"b c",NULL}'::text[]}) read as the change log's value
 * of that array: the {@link Value.Array} the live stream would carry for a row holding it.
 *
 * <p>Used for constant defaults of array columns ({@code io.pg2lite.protocol.schema.ConstantDefault}):
 * the source sends such a default instead of a backfill only when this class can read it
 * ({@link #supports}), and the sink stores exactly the value read here, so rows that got the
 * default when the column was added and rows written later hold the same text (invariant: one
 * array, one stored form).
 *
 * <p>Only element types whose Postgres text is also their change-log value, or reads as it
 * exactly, are supported: integers, floats, booleans, numeric and text-like types. Others
 * (timestamps, bytea, json, ...) print differently from how the log writes them, and a column
 * default of such an array is backfilled instead. Text syntax: elements separated by commas,
 * nested braces for more dimensions, double-quoted elements with backslash escapes, unquoted
 * {@code NULL} for a null element, whitespace around elements ignored; explicit bounds
 * ({@code [0:1]={...}}) are refused.
 */
public final class ArrayLiteral {
  private enum Kind { INT, FLOAT4, FLOAT8, BOOL, TEXT }

  private final String s;
  private final Kind kind;
  private int i;

  private ArrayLiteral(String s, Kind kind) {
    this.s = s;
    this.kind = kind;
  }

  /**
   * Whether arrays of {@code elementType} (a Postgres type name without "[]"; {@code elemTypeClass}
   * is the element type's typtype, "e" for enums) can be read from their text.
   */
  public static boolean supports(String elementType, String elemTypeClass) {
    return kind(elementType, elemTypeClass) != null;
  }

  /**
   * The array value of {@code text} for elements of {@code elementType}.
   *
   * @throws IllegalArgumentException when the type is not supported or the text is not an array
   */
  public static Value.Array parse(String text, String elementType, String elemTypeClass) {
    Kind kind = kind(elementType, elemTypeClass);
    if (kind == null) {
      throw new IllegalArgumentException("arrays of " + elementType + " cannot be read from their text exactly");
    }
    ArrayLiteral p = new ArrayLiteral(text, kind);
    p.skipSpace();
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
    Kind kind = kind(elementType, elemTypeClass);
    if (kind == null) {
      throw new IllegalArgumentException("arrays of " + elementType + " cannot be read from their text exactly");
    }
    StringBuilder sb = new StringBuilder();
    write(sb, array, kind);
    return sb.toString();
  }

  private static void write(StringBuilder sb, Value.Array array, Kind kind) {
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
        sb.append(kind == Kind.FLOAT4 ? Float.toString((float) f.value()) : Double.toString(f.value()));
      } else if (e instanceof Value.Bool b) {
        sb.append(b.value());
      } else {
        String t = ((Value.Text) e).value();
        sb.append('"').append(t.replace("\\", "\\\\").replace("\"", "\\\"")).append('"');
      }
    }
    sb.append('}');
  }

  private static Kind kind(String type, String typeClass) {
    if ("e".equals(typeClass)) {
      return Kind.TEXT;
    }
    switch (type) {
      case "int2":
      case "int4":
      case "int8":
      case "oid":
        return Kind.INT;
      case "float4":
        return Kind.FLOAT4;
      case "float8":
        return Kind.FLOAT8;
      case "bool":
        return Kind.BOOL;
      case "numeric":
      case "text":
      case "varchar":
      case "name":
      case "citext":
      case "uuid":
        return Kind.TEXT;
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
      switch (kind) {
        case INT:
          return new Value.Int(Long.parseLong(text));
        case FLOAT4:
          return Value.ofDouble(Float.parseFloat(text));
        case FLOAT8:
          return Value.ofDouble(Double.parseDouble(text));
        case BOOL:
          return new Value.Bool(bool(text));
        default:
          return new Value.Text(text);
      }
    } catch (NumberFormatException e) {
      throw error("\"" + text + "\" is not a " + kind.name().toLowerCase());
    }
  }


  private boolean bool(String text) {
    switch (text.toLowerCase()) {
      case "t":
      case "true":
        return true;
      case "f":
      case "false":
        return false;
      default:
        throw error("\"" + text + "\" is not a boolean");
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
