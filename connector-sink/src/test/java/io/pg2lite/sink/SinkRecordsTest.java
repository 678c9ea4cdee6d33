package io.pg2lite.sink;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pg2lite.protocol.message.ChangeLogHeaders;
import io.pg2lite.replica.apply.ApplyException;
import java.util.List;
import java.util.Map;
import org.apache.kafka.connect.converters.ByteArrayConverter;
import org.apache.kafka.connect.data.Schema;
import org.apache.kafka.connect.data.SchemaAndValue;
import org.apache.kafka.connect.header.ConnectHeaders;
import org.apache.kafka.connect.sink.SinkRecord;
import org.apache.kafka.connect.storage.HeaderConverter;
import org.apache.kafka.connect.storage.SimpleHeaderConverter;
import org.apache.kafka.connect.storage.StringConverter;
import org.junit.jupiter.api.Test;

/**
 * pg2lite's headers through Connect's real header converters: the source's (what the etc/ config
 * sets, and Connect's default) writing, each of the sink's reading.
 */
class SinkRecordsTest {
  private static final String TOPIC = "changes";

  @Test
  void headersReadBackExactlyThroughEveryPairOfConverters() {
    for (HeaderConverter source : List.of(converter(new StringConverter()), converter(new SimpleHeaderConverter()))) {
      for (HeaderConverter sink : List.of(converter(new ByteArrayConverter()), converter(new StringConverter()),
          converter(new SimpleHeaderConverter()))) {
        String pair = source.getClass().getSimpleName() + " -> " + sink.getClass().getSimpleName();
        SinkRecord r = record(source, sink, "6kq3x0w", "1234567");
        assertEquals("6kq3x0w", SinkRecords.header(r, ChangeLogHeaders.REPLICA_VERSION), pair);
        assertEquals(1234567L, SinkRecords.seq(r), pair);
      }
    }
  }

  @Test
  void aWatermarkThatLooksLikeANumberIsExactWithTheConfiguredConverters() {
    for (HeaderConverter sink : List.of(converter(new ByteArrayConverter()), converter(new StringConverter()))) {
      SinkRecord r = record(converter(new StringConverter()), sink, "5123e45", "0");
      assertEquals("5123e45", SinkRecords.header(r, ChangeLogHeaders.REPLICA_VERSION));
    }
  }

  @Test
  void aWatermarkTheDefaultConverterTurnedIntoAFloatStopsTheTaskWithTheFix() {
    SinkRecord r = record(converter(new StringConverter()), converter(new SimpleHeaderConverter()), "5123e45", "0");
    ApplyException e = assertThrows(ApplyException.class,
        () -> SinkRecords.header(r, ChangeLogHeaders.REPLICA_VERSION));
    assertTrue(e.getMessage().contains("pg2lite.replica.version") && e.getMessage().contains("Double")
        && e.getMessage().contains("\"header.converter\": \"org.apache.kafka.connect.converters.ByteArrayConverter\""),
        e.getMessage());
  }

  /** A record whose headers the source's converter wrote and the sink's converter read, as Connect does. */
  private static SinkRecord record(HeaderConverter source, HeaderConverter sink, String replicaVersion, String seq) {
    ConnectHeaders headers = new ConnectHeaders();
    for (Map.Entry<String, String> h : Map.of(ChangeLogHeaders.REPLICA_VERSION, replicaVersion,
        ChangeLogHeaders.SEQ, seq).entrySet()) {
      byte[] wire = source.fromConnectHeader(TOPIC, h.getKey(), Schema.STRING_SCHEMA, h.getValue());
      SchemaAndValue read = sink.toConnectHeader(TOPIC, h.getKey(), wire);
      headers.add(h.getKey(), read);
    }
    return new SinkRecord(TOPIC, 0, null, null, Schema.BYTES_SCHEMA, new byte[0], 7L, null, null, headers);
  }

  private static HeaderConverter converter(HeaderConverter c) {
    c.configure(Map.of("converter.type", "header"));
    return c;
  }
}
