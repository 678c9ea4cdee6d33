package io.pg2lite.source.transaction;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import io.pg2lite.protocol.watermark.Lsn;
import io.pg2lite.protocol.watermark.Watermark;
import io.pg2lite.source.debezium.DebeziumPositions;
import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The offset map's layout is a stored format: keys written by earlier versions must still read. */
class SourcePositionTest {
  private static final Watermark RV = Watermark.fromLsn("0/1000");

  @Test
  void theUpstreamPositionTravelsUnderItsPrefixBesidePg2litesOwnKeys() {
    Map<String, Object> upstream = Map.of("lsn_commit", 4096L, "txId", 7L);
    SourcePosition p = new SourcePosition(RV, Watermark.fromLsn("0/2000"), upstream, "[]", null);
    Map<String, Object> offset = p.toOffset();
    assertEquals(4096L, offset.get("dbz.lsn_commit"), "the key stored offsets have always used");
    assertEquals(Watermark.fromLsn("0/2000").toString(), offset.get("watermark"));
    SourcePosition back = SourcePosition.fromOffset(offset);
    assertEquals(upstream, back.upstream());
    assertEquals(p, back);
  }

  @Test
  void theSchemaIdOfOffsetsStoredWithTheHistoryInPostgresIsReadButNeverWritten() {
    Map<String, Object> legacy = new HashMap<>(new SourcePosition(RV, RV.nextMinor(), null).toOffset());
    legacy.put("schemaId", 17);
    SourcePosition read = SourcePosition.fromOffset(legacy);
    assertEquals(17L, read.legacySchemaId());
    assertNull(read.toOffset().get("schemaId"), "the history is in Kafka now (ADR 0028)");
  }

  @Test
  void anOffsetStoredBeforeAnyUpstreamPositionHasNone() {
    Map<String, Object> offset = new HashMap<>(new SourcePosition(RV, RV.nextMinor(), null).toOffset());
    assertNull(SourcePosition.fromOffset(offset).upstream());
    assertNull(SourcePosition.upstreamOf(null));
  }

  @Test
  void debeziumResumesAfterItsLsnCommit() {
    assertEquals(new Lsn(4096L), new DebeziumPositions().resumeLsn(Map.of("lsn_commit", 4096L, "lsn", 5000L)));
    assertNull(new DebeziumPositions().resumeLsn(null));
    assertNull(new DebeziumPositions().resumeLsn(Map.of("lsn", 5000L)));
  }
}
