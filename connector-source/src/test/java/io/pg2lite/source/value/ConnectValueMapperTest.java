package io.pg2lite.source.value;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pg2lite.protocol.value.Value;
import java.nio.ByteBuffer;
import java.util.List;
import java.util.Map;
import org.apache.kafka.connect.data.Schema;
import org.apache.kafka.connect.data.SchemaBuilder;
import org.junit.jupiter.api.Test;

class ConnectValueMapperTest {
  private final ConnectValueMapper mapper = new ConnectValueMapper();

  private static Schema typed(SchemaBuilder b, String pgType) {
    return b.parameters(Map.of("__debezium.source.column.type", pgType)).optional().build();
  }

  @Test
  void numericSpecialValuesAreRespelledOnlyForNumericColumns() {
    assertEquals(Value.of("NaN"), mapper.value("n", typed(SchemaBuilder.string(), "NUMERIC"), "NAN"));
    assertEquals(Value.of("Infinity"), mapper.value("n", typed(SchemaBuilder.string(), "NUMERIC"), "POSITIVE_INFINITY"));
    assertEquals(Value.of("NAN"), mapper.value("t", typed(SchemaBuilder.string(), "TEXT"), "NAN"),
        "a text column holding NAN keeps it");
  }

  @Test
  void aValueOfADroppedTypeIsItsTextNeverHex() {
    byte[] label = "héllo".getBytes(java.nio.charset.StandardCharsets.UTF_8);
    assertEquals(Value.of("héllo"), mapper.value("m", typed(SchemaBuilder.bytes(), "UNKNOWN"), ByteBuffer.wrap(label)));
    assertEquals(Value.of("\\x68c3a96c6c6f"), mapper.value("b", typed(SchemaBuilder.bytes(), "BYTEA"), label),
        "bytea stays hex");
  }

  @Test
  void intervalsArePrintedAsPostgresPrintsThemInIso8601Style() {
    Schema interval = SchemaBuilder.string().name("io.debezium.time.Interval").optional().build();
    // Debezium's string mode writes every field; Postgres (IntervalStyle iso_8601), and so a
    // backfill copy, leaves zero fields out and folds hours/minutes/seconds into one time.
    assertEquals(Value.of("P14DT6H9M47S"), mapper.value("i", interval, "P0Y0M14DT6H9M47S"));
    assertEquals(Value.of("PT-3H-0.5S"), mapper.value("i", interval, "P0Y0M0DT-3H0M-0.5S"));
    assertEquals(Value.of("P-1Y-2M3D"), mapper.value("i", interval, "P-1Y-2M3DT0H0M0S"));
    assertEquals(Value.of("PT0S"), mapper.value("i", interval, "P0Y0M0DT0H0M0S"));
    assertEquals(Value.of("PT0.000001S"), mapper.value("i", interval, "P0Y0M0DT0H0M0.000001S"));
    assertEquals(Value.of("P1Y2M3DT4H5M6.5S"), mapper.value("i", interval, "P1Y2M3DT4H5M6.5S"));
    assertEquals(Value.of("P100Y"), mapper.value("i", interval, "P100Y0M0DT0H0M0S"));
    assertEquals(Value.of("P1M-1D"), mapper.value("i", interval, "P0Y1M-1DT0H0M0S"));
    assertEquals(Value.of("PT1H"), mapper.value("i", interval, "P0Y0M0DT0H60M0S"), "one time, re-split as Postgres does");
    assertThrows(IllegalArgumentException.class, () -> mapper.value("i", interval, "1 day"),
        "a form pg2lite does not know stops the task instead of writing a wrong value");
  }

  @Test
  void yearsAfter9999HaveNoPlusSignLikePostgres() {
    Schema date = SchemaBuilder.int32().name("io.debezium.time.Date").optional().build();
    assertEquals(Value.of("10000-01-01"), mapper.value("d", date, (int) java.time.LocalDate.of(10000, 1, 1).toEpochDay()));
    Schema ts = SchemaBuilder.int64().name("io.debezium.time.MicroTimestamp").optional().build();
    long micros = java.time.LocalDateTime.of(123456, 7, 8, 1, 2, 3).toEpochSecond(java.time.ZoneOffset.UTC) * 1_000_000L;
    assertEquals(Value.of("123456-07-08T01:02:03"), mapper.value("ts", ts, micros));
    assertEquals(Value.of("infinity"), mapper.value("ts", ts, Long.MAX_VALUE), "Postgres' spelling, as a copy reads it");
    assertEquals(Value.of("-infinity"), mapper.value("ts", ts, Long.MIN_VALUE));
    assertEquals(Value.of("-4713-11-24T00:00:00"), mapper.value("ts", ts, -210_866_803_200_000_000L),
        "Postgres' first timestamp (4714 BC)");
    long wrapped = Long.MAX_VALUE + 500_000L; // Debezium's saturated seconds plus a fraction
    IllegalArgumentException past = assertThrows(IllegalArgumentException.class,
        () -> mapper.value("ts", ts, wrapped), "a wrapped value is not the row's value");
    assertTrue(past.getMessage().contains("294247") && past.getMessage().contains("\"ts\""), past.getMessage());
    Schema zoned = SchemaBuilder.string().name("io.debezium.time.ZonedTimestamp").optional().build();
    assertEquals(Value.of("123456-07-08T01:02:03Z"), mapper.value("tz", zoned, "+123456-07-08T06:32:03+05:30"));
  }

  @Test
  void floatsDatesTimesAndBytes() {
    assertEquals(Value.of("NaN"), mapper.value("f", Schema.OPTIONAL_FLOAT64_SCHEMA, Double.NaN));
    assertEquals(Value.of("-Infinity"), mapper.value("f", Schema.OPTIONAL_FLOAT64_SCHEMA, Double.NEGATIVE_INFINITY));
    assertEquals(new Value.Float(0.25), mapper.value("f", Schema.OPTIONAL_FLOAT32_SCHEMA, 0.25f));
    assertEquals(Value.of("1969-12-31"), mapper.value("d",
        SchemaBuilder.int32().name("io.debezium.time.Date").optional().build(), -1));
    assertEquals(Value.of("1969-12-31T23:59:59.999999"), mapper.value("ts",
        SchemaBuilder.int64().name("io.debezium.time.MicroTimestamp").optional().build(), -1L));
    Schema microTime = SchemaBuilder.int64().name("io.debezium.time.MicroTime").optional().build();
    assertEquals(Value.of("00:00:01.5"), mapper.value("t", microTime, 1_500_000L), "fraction trimmed like Postgres");
    assertEquals(Value.of("13:00:00"), mapper.value("t", microTime, 13L * 3600 * 1_000_000));
    Schema zoned = SchemaBuilder.string().name("io.debezium.time.ZonedTimestamp").optional().build();
    assertEquals(Value.of("2025-01-02T01:04:05.12Z"), mapper.value("tz", zoned, "2025-01-02T03:04:05.120+02:00"),
        "timestamptz normalised to UTC");
    assertEquals(Value.of("\\x00ff"), mapper.value("b", Schema.OPTIONAL_BYTES_SCHEMA, ByteBuffer.wrap(new byte[] {0, -1})));
    assertEquals(Value.NULL, mapper.value("x", Schema.OPTIONAL_STRING_SCHEMA, null));
  }

  @Test
  void unchangedToastPlaceholdersAreRecognisedInEveryConnectForm() {
    String p = ConnectValueMapper.UNCHANGED_TOAST;
    assertTrue(ConnectValueMapper.isUnchangedToast(p));
    assertTrue(ConnectValueMapper.isUnchangedToast(List.of(p)));
    assertTrue(ConnectValueMapper.isUnchangedToast(ByteBuffer.wrap(p.getBytes())));
    assertTrue(ConnectValueMapper.isUnchangedToast(p.getBytes()));
    assertFalse(ConnectValueMapper.isUnchangedToast("body"));
    assertFalse(ConnectValueMapper.isUnchangedToast(List.of(p, p)), "an array of two such strings is a value");
    assertFalse(ConnectValueMapper.isUnchangedToast(null));
  }

  /** Issue 10, defect 1: an explicit NULL must never become the column's DEFAULT. */
  @Test
  void anExplicitNullIsNeverReplacedByTheColumnDefault() {
    assertEquals(Value.NULL, mapper.value("t", SchemaBuilder.string().optional().defaultValue("dflt").build(), null));
    assertEquals(Value.NULL, mapper.value("b", SchemaBuilder.bool().optional().defaultValue(true).build(), null));
    assertEquals(Value.NULL, mapper.value("f", SchemaBuilder.float64().optional().defaultValue(1.5).build(), null));
  }

  @Test
  void unsupportedValuesFailNamingTheColumn() {
    Schema map = SchemaBuilder.map(Schema.STRING_SCHEMA, Schema.STRING_SCHEMA).optional().build();
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
        () -> mapper.value("attrs", map, Map.of("a", "b")));
    assertTrue(e.getMessage().contains("\"attrs\""), e.getMessage());
  }
}
