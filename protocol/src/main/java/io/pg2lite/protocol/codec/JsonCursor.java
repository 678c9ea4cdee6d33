package io.pg2lite.protocol.codec;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import io.pg2lite.protocol.value.Row;
import io.pg2lite.protocol.value.Value;
import io.pg2lite.protocol.watermark.Watermark;
import java.io.IOException;
import java.math.BigDecimal;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.List;

/**
 * Typed reads over a streaming parser. Every read advances to the next token and checks its
 * type; every failure is a {@link ProtocolException} naming the field by JSON pointer. Nothing
 * is coerced: a number where a string belongs is an error, not a conversion.
 */
final class JsonCursor {
  private final JsonParser p;

  JsonCursor(JsonParser p) {
    this.p = p;
  }

  /** Expects the start of an object as the next token. */
  void startObject() throws IOException {
    if (p.nextToken() != JsonToken.START_OBJECT) {
      throw mistyped("an object");
    }
  }

  /** After {@link #startObject}: the next field name, or null at the end of the object. */
  String nextField() throws IOException {
    JsonToken t = p.nextToken();
    if (t == JsonToken.END_OBJECT) {
      return null;
    }
    if (t != JsonToken.FIELD_NAME) {
      throw error("expected a field name but found " + describe(t));
    }
    return p.currentName();
  }

  /** Advances to the next value; true if it is JSON null. */
  boolean nextIsNull() throws IOException {
    return p.nextToken() == JsonToken.VALUE_NULL;
  }

  String string() throws IOException {
    p.nextToken();
    return currentString();
  }

  String currentString() throws IOException {
    if (p.currentToken() != JsonToken.VALUE_STRING) {
      throw mistyped("a string");
    }
    return p.getText();
  }

  /** A string, or null for JSON null. */
  String nullableString() throws IOException {
    return nextIsNull() ? null : currentString();
  }

  long int64() throws IOException {
    p.nextToken();
    return currentInt64();
  }

  /** A 64-bit integer, or null for JSON null. */
  Long nullableInt64() throws IOException {
    return nextIsNull() ? null : currentInt64();
  }

  private long currentInt64() throws IOException {
    if (p.currentToken() != JsonToken.VALUE_NUMBER_INT) {
      throw mistyped("an integer");
    }
    JsonParser.NumberType type = p.getNumberType();
    if (type != JsonParser.NumberType.INT && type != JsonParser.NumberType.LONG) {
      throw error("integer " + p.getText() + " is outside the 64-bit range");
    }
    return p.getLongValue();
  }

  int int32() throws IOException {
    long v = int64();
    if (v < Integer.MIN_VALUE || v > Integer.MAX_VALUE) {
      throw error("integer " + v + " is outside the 32-bit range");
    }
    return (int) v;
  }

  Integer nullableInt32() throws IOException {
    if (nextIsNull()) {
      return null;
    }
    long v = currentInt64();
    if (v < Integer.MIN_VALUE || v > Integer.MAX_VALUE) {
      throw error("integer " + v + " is outside the 32-bit range");
    }
    return (int) v;
  }

  boolean bool() throws IOException {
    JsonToken t = p.nextToken();
    if (t != JsonToken.VALUE_TRUE && t != JsonToken.VALUE_FALSE) {
      throw mistyped("a boolean");
    }
    return t == JsonToken.VALUE_TRUE;
  }

  Boolean nullableBool() throws IOException {
    JsonToken t = p.nextToken();
    if (t == JsonToken.VALUE_NULL) {
      return null;
    }
    if (t != JsonToken.VALUE_TRUE && t != JsonToken.VALUE_FALSE) {
      throw mistyped("a boolean");
    }
    return t == JsonToken.VALUE_TRUE;
  }

  Watermark watermark() throws IOException {
    String text = string();
    try {
      return Watermark.parse(text);
    } catch (IllegalArgumentException e) {
      throw error(e.getMessage());
    }
  }

  /** An ISO-8601 instant ({@code 2025-10-09T08:53:20.123456Z}), or null for JSON null. */
  Instant nullableInstant() throws IOException {
    String text = nullableString();
    if (text == null) {
      return null;
    }
    try {
      return Instant.parse(text);
    } catch (DateTimeParseException e) {
      throw error("\"" + text + "\" is not an ISO-8601 instant such as 2025-10-09T08:53:20.123456Z");
    }
  }

  List<String> stringList() throws IOException {
    p.nextToken();
    return currentStringList();
  }

  /** An array of strings, or null for JSON null. */
  List<String> nullableStringList() throws IOException {
    return nextIsNull() ? null : currentStringList();
  }

  private List<String> currentStringList() throws IOException {
    if (p.currentToken() != JsonToken.START_ARRAY) {
      throw mistyped("an array of strings");
    }
    List<String> out = new ArrayList<>();
    while (p.nextToken() != JsonToken.END_ARRAY) {
      out.add(currentString());
    }
    return out;
  }

  /** A row image: an object of column name to value. */
  Row row() throws IOException {
    p.nextToken();
    return currentRow();
  }

  /** A row image, or null for JSON null. */
  Row nullableRow() throws IOException {
    return nextIsNull() ? null : currentRow();
  }

  private Row currentRow() throws IOException {
    if (p.currentToken() != JsonToken.START_OBJECT) {
      throw mistyped("an object");
    }
    Row.Builder row = Row.builder();
    String column;
    while ((column = nextField()) != null) {
      row.put(column, value());
    }
    return row.build();
  }

  boolean isAtObjectStart() {
    return p.currentToken() == JsonToken.START_OBJECT;
  }

  boolean isAtArrayStart() {
    return p.currentToken() == JsonToken.START_ARRAY;
  }

  /** Starts an array whose elements the caller reads with {@link #nextElement}. */
  void startArray(String what) throws IOException {
    if (p.nextToken() != JsonToken.START_ARRAY) {
      throw mistyped(what);
    }
  }

  /** Inside an array: advances; true if another element follows (the cursor is on its first token). */
  boolean nextElement() throws IOException {
    return p.nextToken() != JsonToken.END_ARRAY;
  }

  Value value() throws IOException {
    p.nextToken();
    return currentValue();
  }

  private Value currentValue() throws IOException {
    JsonToken t = p.currentToken();
    if (t == null) {
      throw error("unexpected end of input");
    }
    switch (t) {
      case VALUE_NULL:
        return Value.NULL;
      case VALUE_TRUE:
        return new Value.Bool(true);
      case VALUE_FALSE:
        return new Value.Bool(false);
      case VALUE_STRING:
        return new Value.Text(p.getText());
      case VALUE_NUMBER_INT:
        return new Value.Int(currentInt64());
      case VALUE_NUMBER_FLOAT:
        return exactFloat();
      case START_ARRAY:
        return new Value.Array(currentArrayElements());
      default:
        throw error("found " + describe(t) + ": column values are null, boolean, number, string or array"
            + " (json/jsonb values travel as text)");
    }
  }

  /** The elements of the array whose start the cursor is on. */
  List<Value> currentArrayValues() throws IOException {
    return currentArrayElements();
  }

  private List<Value> currentArrayElements() throws IOException {
    List<Value> out = new ArrayList<>();
    while (p.nextToken() != JsonToken.END_ARRAY) {
      out.add(currentValue());
    }
    return out;
  }

  /**
   * A float must survive the trip through a 64-bit double exactly; otherwise the producer meant
   * an exact decimal, which the protocol carries as a string, and converting would lose digits.
   */
  private Value exactFloat() throws IOException {
    String text = p.getText();
    double d = p.getDoubleValue();
    if (!Double.isFinite(d) || new BigDecimal(text).compareTo(new BigDecimal(Double.toString(d))) != 0) {
      throw error("number " + text + " is not exactly a 64-bit float; exact decimals travel as strings");
    }
    return new Value.Float(d);
  }

  /** Skips nothing: an unknown field is an error, because ignoring it could drop meaning. */
  ProtocolException unknownField(String field) {
    return new ProtocolException(pointer(), "unknown field \"" + field + "\"");
  }

  /** Called at the end of an object that lacks a required field. */
  ProtocolException missing(String field) {
    String at = pointer();
    return new ProtocolException(("/".equals(at) ? "" : at) + "/" + field, "missing required field \"" + field + "\"");
  }

  ProtocolException mistyped(String expected) {
    return error("expected " + expected + " but found " + describe(p.currentToken()));
  }

  ProtocolException error(String detail) {
    return new ProtocolException(pointer(), detail);
  }

  String pointer() {
    String ptr = p.getParsingContext().pathAsPointer().toString();
    return ptr.isEmpty() ? "/" : ptr;
  }

  /** Fails unless the input ends here. */
  void expectEnd() throws IOException {
    JsonToken t = p.nextToken();
    if (t != null) {
      throw new ProtocolException("/", "trailing content after the record: " + describe(t));
    }
  }

  private static String describe(JsonToken t) {
    if (t == null) {
      return "end of input";
    }
    switch (t) {
      case START_OBJECT:
        return "an object";
      case START_ARRAY:
        return "an array";
      case VALUE_STRING:
        return "a string";
      case VALUE_NUMBER_INT:
      case VALUE_NUMBER_FLOAT:
        return "a number";
      case VALUE_TRUE:
      case VALUE_FALSE:
        return "a boolean";
      case VALUE_NULL:
        return "null";
      default:
        return t.toString();
    }
  }
}
