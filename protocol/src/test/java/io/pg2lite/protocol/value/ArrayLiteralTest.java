package io.pg2lite.protocol.value;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.junit.jupiter.api.Test;

/** Postgres array text read as the change log's array value. */
class ArrayLiteralTest {
  private static Value.Array array(Value... elements) {
    return new Value.Array(List.of(elements));
  }

  @Test
  void textElementsWithQuotesCommasEscapesAndNulls() {
    assertEquals(array(Value.of("a"), Value.of("b c"), Value.NULL, Value.of("x,y"), Value.of("q\"uote"),
            Value.of("back\\slash"), Value.of("NULL"), Value.of(" padded "), Value.of("{}")),
        ArrayLiteral.parse("{a,\"b c\",NULL,\"x,y\",\"q\\\"uote\",\"back\\\\slash\",\"NULL\",\" padded \",\"{}\"}",
            "text", "b"));
  }

  @Test
  void typedElements() {
    assertEquals(array(Value.of(1), Value.NULL, Value.of(-3), Value.of(9223372036854775807L)),
        ArrayLiteral.parse("{1,NULL,-3,9223372036854775807}", "int8", "b"));
    assertEquals(array(new Value.Float(1.5), new Value.Float(-0.0), Value.of("NaN"), Value.of("-Infinity")),
        ArrayLiteral.parse("{1.5,-0,NaN,-Infinity}", "float8", "b"));
    assertEquals(array(new Value.Float((double) 0.1f)), ArrayLiteral.parse("{0.1}", "float4", "b"),
        "a float4 element widens like the live stream's");
    assertEquals(array(Value.of(true), Value.of(false)), ArrayLiteral.parse("{t,f}", "bool", "b"));
    assertEquals(array(Value.of("1.10"), Value.of("NaN")), ArrayLiteral.parse("{1.10,NaN}", "numeric", "b"));
    assertEquals(array(Value.of("happy")), ArrayLiteral.parse("{happy}", "mood", "e"));
    assertEquals(array(), ArrayLiteral.parse("{}", "int4", "b"));
    assertEquals(array(array(Value.of(1), Value.of(2)), array(Value.of(3), Value.NULL)),
        ArrayLiteral.parse("{{1,2},{3,NULL}}", "int4", "b"));
    assertEquals(array(Value.of("a"), Value.of("b")), ArrayLiteral.parse(" { a , b } ", "text", "b"));
  }

  @Test
  void typesWhoseTextIsNotTheirLogValueAreNotSupported() {
    for (String type : List.of("timestamptz", "timestamp", "date", "bytea", "json", "jsonb", "bpchar", "interval")) {
      assertFalse(ArrayLiteral.supports(type, "b"), type);
    }
    assertTrue(ArrayLiteral.supports("varchar", "b"));
    assertThrows(IllegalArgumentException.class, () -> ArrayLiteral.parse("{2025-01-01}", "date", "b"));
  }

  @Test
  void malformedTextIsRefused() {
    for (String text : List.of("[0:1]={1,2}", "{1,2", "{1,,2}", "{1} x", "{\"a}", "{a\"b}", "{1.5}")) {
      assertThrows(IllegalArgumentException.class, () -> ArrayLiteral.parse(text, "int4", "b"), text);
    }
  }
}
