package io.pg2lite.protocol.value;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The reading of Postgres' text into log values, against text Postgres itself printed
 * ({@code src/test/resources/value/*.txt}, printed by psql): the same value printed in another
 * zone or interval style must read as the same log value, and that value is the form
 * docs/type-mapping.md documents.
 */
class TextFormTest {
  private static List<String[]> fixture(String name) throws IOException {
    try (InputStream in = TextFormTest.class.getResourceAsStream("/value/" + name)) {
      return new String(in.readAllBytes(), StandardCharsets.UTF_8).lines()
          .filter(l -> !l.startsWith("#") && !l.isBlank())
          .map(l -> l.split("\\|"))
          .toList();
    }
  }

  private static String text(TextForm form, String postgres) {
    return ((Value.Text) form.read(postgres.strip())).value();
  }

  @Test
  void intervalsAreTakenInIso8601StyleOnly() {
    assertEquals("P1Y2M3DT4H5M6.5S", text(TextForm.INTERVAL, "P1Y2M3DT4H5M6.5S"));
    assertEquals("PT0S", text(TextForm.INTERVAL, "PT0S"));
    assertEquals("infinity", text(TextForm.INTERVAL, "infinity"), "Postgres 17's infinite interval");
    for (String other : List.of("1 year 2 mons", "@ 1 year ago", "1-2 3 4:05:06", "00:00:00")) {
      IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> TextForm.INTERVAL.read(other),
          "another style is refused, never carried as another form: " + other);
      assertTrue(e.getMessage().contains("PRINTING_SETTINGS"), e.getMessage());
    }
  }

  @Test
  void aTimestamptzPrintedInAnyZoneReadsAsTheSameUtcValue() throws IOException {
    List<String[]> rows = fixture("timestamptz.txt");
    assertTrue(rows.size() >= 13);
    for (String[] r : rows) {
      String utc = text(TextForm.TIMESTAMPTZ, r[0]);
      for (int zone = 1; zone < r.length; zone++) {
        assertEquals(utc, text(TextForm.TIMESTAMPTZ, r[zone]), r[zone]);
      }
    }
    assertEquals("2025-01-02T03:04:05.123456Z", text(TextForm.TIMESTAMPTZ, rows.get(0)[0]));
    assertEquals("-0043-03-15T12:00:00Z", text(TextForm.TIMESTAMPTZ, "0044-03-15 12:00:00+00 BC"));
    assertEquals("-4713-11-24T00:00:00Z", text(TextForm.TIMESTAMPTZ, "4714-11-23 20:29:08-03:30:52 BC"));
    assertEquals("294276-12-31T23:59:59.999999Z", text(TextForm.TIMESTAMPTZ, "294277-01-01 05:29:59.999999+05:30"));
    assertEquals("0000-01-01T00:00:00Z", text(TextForm.TIMESTAMPTZ, "0002-12-31 13:30:40-10:29:20 BC"));
    assertEquals("-infinity", text(TextForm.TIMESTAMPTZ, "-infinity"));
  }

  @Test
  void aTimetzReadsAsPostgresMovesItToUtc() throws IOException {
    for (String[] r : fixture("timetz.txt")) {
      String utc = r[1].strip();
      assertEquals(utc.substring(0, utc.length() - 3) + "Z", text(TextForm.TIMETZ, r[0]), r[0]);
    }
  }

  @Test
  void datesAndTimestampsKeepEveryValuePostgresHas() {
    assertEquals("2025-01-02", text(TextForm.DATE, "2025-01-02"));
    assertEquals("-0043-03-15", text(TextForm.DATE, "0044-03-15 BC"));
    assertEquals("-4713-11-24", text(TextForm.DATE, "4714-11-24 BC"));
    assertEquals("0000-01-01", text(TextForm.DATE, "0001-01-01 BC"));
    assertEquals("-0009-01-01", text(TextForm.DATE, "0010-01-01 BC"));
    assertEquals("5874897-12-31", text(TextForm.DATE, "5874897-12-31"));
    assertEquals("infinity", text(TextForm.DATE, "infinity"));
    assertEquals("-infinity", text(TextForm.DATE, "-infinity"));
    assertEquals("2025-01-02T03:04:05.123456", text(TextForm.TIMESTAMP, "2025-01-02 03:04:05.123456"));
    assertEquals("-0043-03-15T12:00:00", text(TextForm.TIMESTAMP, "0044-03-15 12:00:00 BC"));
    assertEquals("294276-12-31T23:59:59.999999", text(TextForm.TIMESTAMP, "294276-12-31 23:59:59.999999"),
        "past Debezium's 64-bit microseconds (294247), exact");
    assertEquals("infinity", text(TextForm.TIMESTAMP, "infinity"));
    assertEquals(Value.of("24:00:00"), TextForm.of("time").read("24:00:00"));
  }

  @Test
  void numbersAndBooleansReadAsTheirLogValues() {
    assertEquals(Value.of(9223372036854775807L), TextForm.INT.read("9223372036854775807"));
    assertEquals(Value.ofDouble(-0.0), TextForm.FLOAT8.read("-0"));
    assertEquals(Value.ofDouble(Double.NaN), TextForm.FLOAT8.read("NaN"));
    assertEquals(Value.ofDouble(Double.NEGATIVE_INFINITY), TextForm.FLOAT8.read("-Infinity"));
    assertEquals(Value.ofDouble(1.1f), TextForm.FLOAT4.read("1.1"), "a float4 widens as the live stream's float does");
    assertEquals(Value.of(true), TextForm.BOOL.read("t"));
    assertEquals(Value.of("NaN"), TextForm.of("numeric").read("NaN"));
    assertEquals(Value.of("(1.5,-2)"), TextForm.of("point").read("(1.5,-2)"), "other types: as printed");
    assertThrows(IllegalArgumentException.class, () -> TextForm.INT.read("1.5"));
  }

  @Test
  void arraysOfAnyDimensionReadEachElementByItsForm() {
    assertEquals(new Value.Array(List.of(new Value.Array(List.of(Value.of("2025-01-02"), Value.of("infinity"))),
            new Value.Array(List.of(Value.of("-0043-03-15"), Value.NULL)))),
        ArrayLiteral.parse("{{2025-01-02,infinity},{\"0044-03-15 BC\",NULL}}", TextForm.DATE));
    assertEquals(new Value.Array(List.of(new Value.Array(List.of(new Value.Array(List.of(Value.of("\\x00ff"))))))),
        ArrayLiteral.parse("{{{\"\\\\x00ff\"}}}", TextForm.AS_PRINTED), "bytea elements in hex, as the scalar");
    assertEquals(new Value.Array(List.of(Value.of("P1Y"), Value.of("PT-1S"))),
        ArrayLiteral.parse("{P1Y,PT-1S}", TextForm.INTERVAL));
    assertEquals(new Value.Array(List.of(Value.of(1), Value.of(2))), ArrayLiteral.parse("[0:1]={1,2}", TextForm.INT),
        "bounds are not part of the JSON array");
    assertEquals(new Value.Array(List.of()), ArrayLiteral.parse("{}", TextForm.INT));
  }

  /** Postgres' hstore_to_json, by psql: {"a": "1", "nl": "line\nx", "b c": null, "q\"u": "x\\y"}. */
  @Test
  void anHstoreReadsAsTheJsonPostgresPrintsForIt() {
    assertEquals("{\"a\": \"1\", \"nl\": \"line\\nx\", \"b c\": null, \"q\\\"u\": \"x\\\\y\"}",
        text(TextForm.of("hstore"), "\"a\"=>\"1\", \"nl\"=>\"line\nx\", \"b c\"=>NULL, \"q\\\"u\"=>\"x\\\\y\""));
    assertEquals("{}", text(TextForm.HSTORE, ""));
    assertThrows(IllegalArgumentException.class, () -> TextForm.HSTORE.read("\"a\"=>1"));
  }
}
