package io.pg2lite.source.debezium;

import io.pg2lite.protocol.schema.QualifiedName;
import io.pg2lite.protocol.value.Row;
import io.pg2lite.protocol.watermark.Lsn;
import io.pg2lite.source.replication.ReplicationEvent;
import io.pg2lite.source.replication.ReplicationEvent.RowOp;
import java.nio.ByteBuffer;
import java.time.Instant;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.kafka.connect.data.Field;
import org.apache.kafka.connect.data.Struct;
import org.apache.kafka.connect.errors.ConnectException;
import org.apache.kafka.connect.header.Header;
import org.apache.kafka.connect.source.SourceRecord;

/**
 * Turns Debezium's source records into {@link ReplicationEvent}s. Which record is which follows
 * from its topic: {@code <name>.transaction} (BEGIN/END), {@code <name>.message} (logical decoding
 * messages), {@code __debezium-heartbeat.<name>} (heartbeats), anything else a table's changes.
 *
 * <p>Debezium emits a primary-key update as a delete of the old key (header
 * {@code __debezium.newkey}) immediately followed by a create of the new row (header
 * {@code __debezium.oldkey}). The mapper joins the pair back into one update whose {@code before}
 * is the old key, as the protocol wants; it is the only state it keeps.
 */
final class DebeziumEventMapper {
  /** The offset keys Debezium's Postgres offset loader reads; the rest (open-transaction counters) is dropped. */
  private static final Set<String> POSITION_KEYS = Set.of("lsn", "lsn_proc", "lsn_commit", "txId", "messageType",
      "ts_usec", "lsn_events_processed", "snapshot", "snapshot_completed", "last_snapshot_record");

  private final String transactionTopic;
  private final String messageTopic;
  private final String heartbeatTopic;
  private final ConnectValueMapper values = new ConnectValueMapper();
  private SourceRecord pendingKeyChange;
  /** The schema of pg2lite's catalog objects in Postgres (install.sql). */
  private static final String CATALOG_SCHEMA = "pg2lite";

  DebeziumEventMapper(String logicalName) {
    this.transactionTopic = logicalName + ".transaction";
    this.messageTopic = logicalName + ".message";
    this.heartbeatTopic = "__debezium-heartbeat." + logicalName;
  }

  /** Maps one record; returns null for a record that is half of a key change still waiting for its other half. */
  ReplicationEvent map(SourceRecord record) {
    String topic = record.topic();
    if (pendingKeyChange != null && !isKeyChangeInsert(record)) {
      throw new ConnectException("Debezium sent the delete half of a primary-key update (" + pendingKeyChange.topic()
          + ") without its insert half; got " + topic + " next");
    }
    if (topic.equals(transactionTopic)) {
      return transaction(record);
    }
    if (topic.equals(messageTopic)) {
      return message(record);
    }
    if (topic.equals(heartbeatTopic)) {
      return new ReplicationEvent.Heartbeat(position(record.sourceOffset()));
    }
    return change(record);
  }

  private ReplicationEvent transaction(SourceRecord record) {
    Struct v = (Struct) record.value();
    Map<String, ?> offset = record.sourceOffset();
    long txId = ((Number) offset.get("txId")).longValue();
    String status = v.getString("status");
    if ("BEGIN".equals(status)) {
      Object usec = offset.get("ts_usec");
      Instant commitTime = usec == null ? null : micros(((Number) usec).longValue());
      return new ReplicationEvent.TxBegin(txId, commitTime);
    }
    if ("END".equals(status)) {
      Object commit = offset.get("lsn_commit");
      if (commit == null) {
        throw new ConnectException("Debezium transaction END without lsn_commit in its offset: " + offset);
      }
      return new ReplicationEvent.TxEnd(txId, new Lsn(((Number) commit).longValue()), v.getInt64("event_count"),
          position(offset));
    }
    throw new ConnectException("unknown Debezium transaction status " + status);
  }

  private ReplicationEvent message(SourceRecord record) {
    Struct v = (Struct) record.value();
    Struct m = v.getStruct("message");
    Object content = m.get("content");
    byte[] bytes;
    if (content instanceof ByteBuffer b) {
      bytes = new byte[b.remaining()];
      b.duplicate().get(bytes);
    } else {
      bytes = (byte[]) content;
    }
    Object txId = v.getStruct("source").get("txId");
    return new ReplicationEvent.Message(txId == null ? null : ((Number) txId).longValue(), m.getString("prefix"), bytes);
  }

  private ReplicationEvent change(SourceRecord record) {
    Struct v = (Struct) record.value();
    Struct source = v.getStruct("source");
    QualifiedName table = new QualifiedName(source.getString("schema"), source.getString("table"));
    if (CATALOG_SCHEMA.equals(table.schema())) {
      // pg2lite's own tables (pg2lite.schema_history is written inside every DDL's transaction)
      // are never replicated, even when a FOR ALL TABLES publication carries them.
      return null;
    }
    Object tx = source.get("txId");
    long txId = tx == null ? -1 : ((Number) tx).longValue();
    List<String> key = record.keySchema() == null ? List.of()
        : record.keySchema().fields().stream().map(Field::name).toList();
    String op = v.getString("op");
    switch (op) {
      case "c":
      case "r":
        if (pendingKeyChange != null) {
          Struct before = ((Struct) pendingKeyChange.value()).getStruct("before");
          pendingKeyChange = null;
          return new ReplicationEvent.RowChange(txId, RowOp.UPDATE, table, key, values.row(before),
              values.row(v.getStruct("after")));
        }
        return new ReplicationEvent.RowChange(txId, RowOp.INSERT, table, key, null, values.row(v.getStruct("after")));
      case "u":
        Struct before = v.getStruct("before");
        return new ReplicationEvent.RowChange(txId, RowOp.UPDATE, table, key, before == null ? null : values.row(before),
            values.row(v.getStruct("after")));
      case "d":
        if (header(record, "__debezium.newkey") != null) {
          pendingKeyChange = record;
          return null;
        }
        return new ReplicationEvent.RowChange(txId, RowOp.DELETE, table, key, values.row(v.getStruct("before")), null);
      case "t":
        return new ReplicationEvent.Truncate(txId, table);
      default:
        throw new ConnectException("unknown Debezium operation '" + op + "' on " + table);
    }
  }

  private boolean isKeyChangeInsert(SourceRecord record) {
    return header(record, "__debezium.oldkey") != null;
  }

  private static Header header(SourceRecord record, String key) {
    return record.headers().lastWithName(key);
  }

  /** The part of Debezium's offset that is a resume position, as a fresh map. */
  static Map<String, Object> position(Map<String, ?> offset) {
    Map<String, Object> out = new HashMap<>();
    offset.forEach((k, val) -> {
      if (POSITION_KEYS.contains(k)) {
        out.put(k, val);
      }
    });
    return out;
  }

  private static Instant micros(long usec) {
    return Instant.ofEpochSecond(Math.floorDiv(usec, 1_000_000L), Math.floorMod(usec, 1_000_000L) * 1000);
  }
}
