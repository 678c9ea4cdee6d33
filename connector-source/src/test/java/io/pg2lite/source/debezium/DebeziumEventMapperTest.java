package io.pg2lite.source.debezium;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pg2lite.protocol.schema.QualifiedName;
import io.pg2lite.protocol.value.Row;
import io.pg2lite.protocol.value.Value;
import io.pg2lite.protocol.watermark.Lsn;
import io.pg2lite.source.replication.ReplicationEvent;
import io.pg2lite.source.replication.ReplicationEvent.RowOp;
import java.time.Instant;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.kafka.connect.data.Schema;
import org.apache.kafka.connect.data.SchemaBuilder;
import org.apache.kafka.connect.data.Struct;
import org.apache.kafka.connect.errors.ConnectException;
import org.apache.kafka.connect.header.ConnectHeaders;
import org.apache.kafka.connect.source.SourceRecord;
import org.junit.jupiter.api.Test;

/**
 * Debezium's records to replication events, built as Debezium's Postgres connector shapes them:
 * the primary-key update that arrives as a delete + create pair and is joined back into one
 * update, a delete on its own, a pair broken by another record, transaction markers and pg2lite's
 * own tables.
 */
class DebeziumEventMapperTest {
  private static final String NAME = "pg2lite_slot";
  private static final Schema KEY = SchemaBuilder.struct().name("t.Key").field("id", Schema.INT32_SCHEMA).build();
  private static final Schema ROW = SchemaBuilder.struct().name("t.Value").optional()
      .field("id", Schema.INT32_SCHEMA).field("v", Schema.OPTIONAL_STRING_SCHEMA).build();
  private static final Schema SOURCE = SchemaBuilder.struct().name("source")
      .field("schema", Schema.STRING_SCHEMA).field("table", Schema.STRING_SCHEMA)
      .field("txId", Schema.OPTIONAL_INT64_SCHEMA).build();
  private static final Schema ENVELOPE = SchemaBuilder.struct().name("t.Envelope")
      .field("before", ROW).field("after", ROW).field("source", SOURCE).field("op", Schema.STRING_SCHEMA).build();
  private static final Schema TX = SchemaBuilder.struct().name("tx")
      .field("status", Schema.STRING_SCHEMA).field("event_count", Schema.OPTIONAL_INT64_SCHEMA).build();

  private final DebeziumEventMapper mapper = new DebeziumEventMapper(NAME);

  private static Struct row(int id, String v) {
    return new Struct(ROW).put("id", id).put("v", v);
  }

  private static SourceRecord change(String schema, String op, Struct before, Struct after, String header) {
    Struct value = new Struct(ENVELOPE).put("op", op).put("before", before).put("after", after)
        .put("source", new Struct(SOURCE).put("schema", schema).put("table", "t").put("txId", 7L));
    ConnectHeaders headers = new ConnectHeaders();
    if (header != null) {
      headers.addString(header, "{\"id\":0}");
    }
    Struct key = new Struct(KEY).put("id", (after != null ? after : before).getInt32("id"));
    return new SourceRecord(Map.of(), Map.of("lsn", 100L), NAME + "." + schema + ".t", null, KEY, key, ENVELOPE, value,
        null, headers);
  }

  private static SourceRecord change(String op, Struct before, Struct after, String header) {
    return change("public", op, before, after, header);
  }

  private static SourceRecord transaction(String status, Map<String, Object> offset) {
    Struct value = new Struct(TX).put("status", status).put("event_count", "END".equals(status) ? 3L : null);
    return new SourceRecord(Map.of(), offset, NAME + ".transaction", null, null, null, TX, value);
  }

  private static Row idAndV(int id, String v) {
    return Row.of("id", Value.of(id), "v", Value.of(v));
  }

  @Test
  void aPrimaryKeyUpdatesDeleteAndCreatePairIsJoinedIntoOneUpdateWithTheOldKey() {
    assertNull(mapper.map(change("d", row(1, "x"), null, "__debezium.newkey")), "the delete half waits");
    ReplicationEvent e = mapper.map(change("c", null, row(2, "x"), "__debezium.oldkey"));
    ReplicationEvent.RowChange u = assertInstanceOf(ReplicationEvent.RowChange.class, e);
    assertEquals(RowOp.UPDATE, u.op());
    assertEquals(new QualifiedName("public", "t"), u.table());
    assertEquals(List.of("id"), u.keyColumns());
    assertEquals(idAndV(1, "x"), u.before(), "before: the old row image the delete carried");
    assertEquals(idAndV(2, "x"), u.after());
    assertEquals(7L, u.txId());
  }

  @Test
  void afterAJoinedPairTheNextCreateIsAnInsertAgain() {
    mapper.map(change("d", row(1, "x"), null, "__debezium.newkey"));
    mapper.map(change("c", null, row(2, "x"), "__debezium.oldkey"));
    ReplicationEvent.RowChange i = assertInstanceOf(ReplicationEvent.RowChange.class,
        mapper.map(change("c", null, row(3, "y"), null)));
    assertEquals(RowOp.INSERT, i.op());
    assertNull(i.before());
  }

  @Test
  void aDeleteWithoutTheKeyChangeHeaderIsADelete() {
    ReplicationEvent.RowChange d = assertInstanceOf(ReplicationEvent.RowChange.class,
        mapper.map(change("d", row(1, "x"), null, null)));
    assertEquals(RowOp.DELETE, d.op());
    assertEquals(idAndV(1, "x"), d.before());
    assertNull(d.after());
  }

  @Test
  void aKeyChangeDeleteFollowedByAnythingButItsCreateFails() {
    mapper.map(change("d", row(1, "x"), null, "__debezium.newkey"));
    ConnectException e = assertThrows(ConnectException.class,
        () -> mapper.map(transaction("END", Map.of("txId", 7L, "lsn_commit", 200L))));
    assertTrue(e.getMessage().contains("without its insert half"), e.getMessage());
  }

  @Test
  void aKeyChangeDeleteFollowedByAPlainCreateFails() {
    mapper.map(change("d", row(1, "x"), null, "__debezium.newkey"));
    assertThrows(ConnectException.class, () -> mapper.map(change("c", null, row(2, "x"), null)));
  }

  @Test
  void anUpdateKeepsItsBeforeImageWhenDebeziumSendsOne() {
    ReplicationEvent.RowChange u = assertInstanceOf(ReplicationEvent.RowChange.class,
        mapper.map(change("u", row(1, "old"), row(1, "new"), null)));
    assertEquals(RowOp.UPDATE, u.op());
    assertEquals(idAndV(1, "old"), u.before());
    assertEquals(idAndV(1, "new"), u.after());
    ReplicationEvent.RowChange noBefore = assertInstanceOf(ReplicationEvent.RowChange.class,
        mapper.map(change("u", null, row(1, "new"), null)));
    assertNull(noBefore.before());
  }

  @Test
  void changesToPg2litesOwnTablesAreDropped() {
    assertNull(mapper.map(change("pg2lite", "c", null, row(1, "x"), null)));
  }

  @Test
  void transactionMarkersCarryTheXidCommitTimeCommitLsnAndOnlyTheResumePosition() {
    Map<String, Object> beginOffset = new HashMap<>(Map.of("txId", 7L, "ts_usec", 1_700_000_000_123_456L));
    ReplicationEvent.TxBegin b = assertInstanceOf(ReplicationEvent.TxBegin.class,
        mapper.map(transaction("BEGIN", beginOffset)));
    assertEquals(7L, b.txId());
    assertEquals(Instant.parse("2023-11-14T22:13:20.123456Z"), b.commitTime());

    Map<String, Object> endOffset = new HashMap<>(Map.of("txId", 7L, "lsn", 300L, "lsn_commit", 200L,
        "transaction_data_collection_order_public.t", 3L));
    ReplicationEvent.TxEnd e = assertInstanceOf(ReplicationEvent.TxEnd.class, mapper.map(transaction("END", endOffset)));
    assertEquals(new Lsn(200), e.commitLsn());
    assertEquals(3, e.eventCount());
    assertEquals(Map.of("txId", 7L, "lsn", 300L, "lsn_commit", 200L), e.position(),
        "the open-transaction counters are not a resume position");
  }

  @Test
  void anEndWithoutItsCommitLsnFails() {
    assertThrows(ConnectException.class, () -> mapper.map(transaction("END", Map.of("txId", 7L))));
  }
}
