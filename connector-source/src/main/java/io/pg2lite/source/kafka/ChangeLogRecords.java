package io.pg2lite.source.kafka;

import io.pg2lite.protocol.codec.ChangeLogCodec;
import io.pg2lite.protocol.message.ChangeLogEntry;
import io.pg2lite.protocol.message.ChangeLogHeaders;
import io.pg2lite.source.transaction.Emitted;
import io.pg2lite.source.transaction.SourcePosition;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import org.apache.kafka.connect.data.Schema;
import org.apache.kafka.connect.header.ConnectHeaders;
import org.apache.kafka.connect.source.SourceRecord;

/**
 * Builds the Connect records the source writes. Change-log values are the protocol's JSON bytes
 * (written as-is by the ByteArrayConverter the connector requires); every record carries the
 * protocol headers. Heartbeats go to their own topic with a tiny JSON value.
 */
public final class ChangeLogRecords {
  private final ChangeLogCodec codec = new ChangeLogCodec();
  private final Map<String, ?> partition;
  private final String topic;
  private final String heartbeatTopic;
  /** Records of one transaction share a position: build its offset map once, not per record. */
  private SourcePosition lastPosition;
  private Map<String, Object> lastOffset;

  /** The sequence number of the next change-log record (heartbeats are not in the change log). */
  private long nextSeq;

  /**
   * @param nextSeq the sequence number of the first change-log record built: the log's last
   *     record's + 1, so numbers run on without a hole across restarts (see
   *     {@link ChangeLogHeaders#SEQ}); records must be built in the order they are written
   */
  public ChangeLogRecords(Map<String, ?> partition, String topic, String heartbeatTopic, long nextSeq) {
    this.partition = partition;
    this.topic = topic;
    this.heartbeatTopic = heartbeatTopic;
    this.nextSeq = nextSeq;
  }

  public SourceRecord toRecord(Emitted e) {
    if (e.position() != lastPosition) {
      lastPosition = e.position();
      lastOffset = lastPosition.toOffset();
    }
    Map<String, Object> offset = lastOffset;
    ConnectHeaders headers = new ConnectHeaders();
    headers.addString(ChangeLogHeaders.REPLICA_VERSION, e.position().replicaVersion().toString());
    if (e.isHeartbeat()) {
      String w = e.position().lastCommit().toString();
      headers.addString(ChangeLogHeaders.WATERMARK, w);
      byte[] value = ("{\"heartbeat\":{\"watermark\":\"" + w + "\"}}").getBytes(StandardCharsets.UTF_8);
      return new ChangeLogRecord(partition, offset, heartbeatTopic, Schema.BYTES_SCHEMA, value, headers);
    }
    ChangeLogEntry entry = e.entry();
    headers.addString(ChangeLogHeaders.KIND, entry.kind().wireName());
    headers.addString(ChangeLogHeaders.WATERMARK, entry.watermark().toString());
    headers.addString(ChangeLogHeaders.POS, Long.toString(entry.pos()));
    headers.addString(ChangeLogHeaders.PROTOCOL_VERSION, Integer.toString(ChangeLogEntry.PROTOCOL_VERSION));
    headers.addString(ChangeLogHeaders.SEQ, Long.toString(nextSeq++));
    return new ChangeLogRecord(partition, offset, topic, Schema.BYTES_SCHEMA, codec.encode(entry), headers);
  }
}
