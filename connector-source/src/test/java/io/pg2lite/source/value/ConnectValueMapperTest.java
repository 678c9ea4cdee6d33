package io.pg2lite.source.value;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pg2lite.protocol.value.Value;
import java.nio.ByteBuffer;
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
  void floatsAndBytes() {
    assertEquals(Value.of("NaN"), mapper.value("f", Schema.OPTIONAL_FLOAT64_SCHEMA, Double.NaN));
    assertEquals(Value.of("-Infinity"), mapper.value("f", Schema.OPTIONAL_FLOAT64_SCHEMA, Double.NEGATIVE_INFINITY));
    assertEquals(new Value.Float(0.25), mapper.value("f", Schema.OPTIONAL_FLOAT32_SCHEMA, 0.25f));
    Schema date = SchemaBuilder.int32().name("io.debezium.time.Date").optional().build();
    IllegalStateException e = assertThrows(IllegalStateException.class, () -> mapper.value("d", date, -1),
        "dates and times are read from Postgres' text; Debezium's reading must never reach the log");
    assertTrue(e.getMessage().contains("\"d\""), e.getMessage());
    assertEquals(Value.of("\\x00ff"), mapper.value("b", Schema.OPTIONAL_BYTES_SCHEMA, ByteBuffer.wrap(new byte[] {0, -1})));
    assertEquals(Value.NULL, mapper.value("x", Schema.OPTIONAL_STRING_SCHEMA, null));
  }

  @Test
  void unchangedToastPlaceholdersAreRecognisedInEveryConnectForm() {
    String p = ConnectValueMapper.UNCHANGED_TOAST;
    assertTrue(ConnectValueMapper.isUnchangedToast(p));
    assertTrue(ConnectValueMapper.isUnchangedToast(ByteBuffer.wrap(p.getBytes())));
    assertTrue(ConnectValueMapper.isUnchangedToast(p.getBytes()));
    assertFalse(ConnectValueMapper.isUnchangedToast("body"));
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
