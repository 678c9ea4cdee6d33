package io.pg2lite.source.kafka;

import static io.pg2lite.source.schema.Schemas.col;
import static io.pg2lite.source.schema.Schemas.pk;
import static io.pg2lite.source.schema.Schemas.schema;
import static io.pg2lite.source.schema.Schemas.table;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pg2lite.protocol.watermark.Watermark;
import io.pg2lite.source.schema.PublishedSchema;
import io.pg2lite.source.schema.RecordedSchema;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.common.header.internals.RecordHeaders;
import org.apache.kafka.common.record.TimestampType;
import org.apache.kafka.connect.header.Header;
import org.apache.kafka.connect.source.SourceRecord;
import org.junit.jupiter.api.Test;

/** The schema history's records (ADR 0028): what a restart reads back is what was written, for its commit. */
class SchemaHistoryTest {
  private static final Watermark RV = Watermark.fromLsn("0/1000");
  private static final Map<String, String> PARTITION = Map.of("database", "db", "slot", "s");

  private static RecordedSchema at(String lsn, int columns) {
    List<PublishedSchema.Column> cols = new ArrayList<>();
    for (int i = 1; i <= columns; i++) {
      cols.add(col("c" + i, i, "text", i == 1));
    }
    return new RecordedSchema(Watermark.fromLsn(lsn), RV, schema(table(1, "t", cols, pk("t_pkey", "c1"))),
        Map.of(1L, 77L), Map.of(1L, 16500L), io.pg2lite.source.schema.DdlDetection.REPLICATION_STREAM);
  }

  /** The records as a consumer reads them back, headers as Connect's SimpleHeaderConverter writes strings. */
  private static List<ConsumerRecord<byte[], byte[]>> consumed(List<SourceRecord> written) {
    List<ConsumerRecord<byte[], byte[]>> out = new ArrayList<>();
    for (SourceRecord r : written) {
      RecordHeaders headers = new RecordHeaders();
      for (Header h : r.headers()) {
        headers.add(h.key(), ((String) h.value()).getBytes(StandardCharsets.UTF_8));
      }
      out.add(new ConsumerRecord<>(r.topic(), 0, out.size(), 0L, TimestampType.CREATE_TIME, 0, 0, null,
          (byte[]) r.value(), headers, Optional.empty()));
    }
    return out;
  }

  @Test
  void aSchemaReadsBackAsWritten() {
    RecordedSchema s = at("0/2000", 3);
    assertEquals(s, SchemaHistory.decode(SchemaHistory.encode(s)));
  }

  @Test
  void aRestartFindsTheNewestSchemaAtOrBeforeItsCommitOfItsLineageAndSource() {
    SchemaHistory mine = new SchemaHistory("t.schemas", "db/s", PARTITION, 1 << 20);
    SchemaHistory other = new SchemaHistory("t.schemas", "db/other", PARTITION, 1 << 20);
    List<SourceRecord> written = new ArrayList<>();
    written.addAll(mine.records(at("0/2000", 2), Map.of()));
    written.addAll(mine.records(at("0/3000", 3), Map.of()));
    written.addAll(other.records(at("0/3500", 5), Map.of()));
    written.addAll(mine.records(at("0/4000", 4), Map.of())); // a commit whose offset was never stored
    List<ConsumerRecord<byte[], byte[]>> read = consumed(written);
    assertEquals(Watermark.fromLsn("0/3000"), SchemaHistory.latest(read, "db/s", RV, Watermark.fromLsn("0/3800"))
        .orElseThrow().at());
    assertEquals(Watermark.fromLsn("0/2000"), SchemaHistory.latest(read, "db/s", RV, Watermark.fromLsn("0/2000"))
        .orElseThrow().at());
    assertTrue(SchemaHistory.latest(read, "db/s", RV, Watermark.fromLsn("0/1500")).isEmpty());
    assertTrue(SchemaHistory.latest(read, "db/s", Watermark.fromLsn("0/9000"), Watermark.fromLsn("0/9999")).isEmpty(),
        "another lineage's schemas are not this one's");
  }

  @Test
  void aSchemaLargerThanARecordIsWrittenInPartsAndReadWhole() {
    SchemaHistory small = new SchemaHistory("t.schemas", "db/s", PARTITION, 200);
    RecordedSchema wide = at("0/2000", 400);
    List<SourceRecord> parts = small.records(wide, Map.of());
    assertTrue(parts.size() > 3, parts.size() + " parts");
    parts.forEach(p -> assertTrue(((byte[]) p.value()).length <= 200));
    assertEquals(wide, SchemaHistory.latest(consumed(parts), "db/s", RV, Watermark.fromLsn("0/2000")).orElseThrow());
    List<SourceRecord> cut = parts.subList(0, parts.size() - 1);
    assertTrue(SchemaHistory.latest(consumed(cut), "db/s", RV, Watermark.fromLsn("0/2000")).isEmpty(),
        "a schema missing a part is not read");
  }
}
