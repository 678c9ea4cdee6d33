package io.pg2lite.source.kafka;

import io.pg2lite.protocol.codec.ChangeLogCodec;
import io.pg2lite.protocol.message.ChangeLogEntry;
import io.pg2lite.protocol.message.ChangeLogHeaders;
import io.pg2lite.protocol.message.MessageKind;
import io.pg2lite.protocol.watermark.Watermark;
import io.pg2lite.protocol.parts.RecordValues;
import io.pg2lite.protocol.parts.SegmentedBytes;
import io.pg2lite.source.transaction.Emitted;
import io.pg2lite.source.transaction.SourcePosition;
import java.nio.charset.StandardCharsets;
import java.util.ArrayDeque;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;
import org.apache.kafka.connect.data.Schema;
import org.apache.kafka.connect.header.ConnectHeaders;
import org.apache.kafka.connect.source.SourceRecord;

/**
 * Builds the Connect records the source writes. Change-log values are the protocol's JSON bytes
 * (written as-is by the ByteArrayConverter the connector requires); every record carries the
 * protocol headers. Heartbeats go to their own topic with a tiny JSON value.
 *
 * <p>An entry larger than the record limit becomes several records, its parts
 * ({@link RecordValues}); they are built as they are drained, a poll's worth at a time, so the
 * task and Connect hold the entry's encoding and one poll of parts, not all of them. Entries are
 * queued ({@link #enqueue}) and drained ({@link #drainInto}) in order: an entry queued after a
 * split one waits for its last part.
 */
public final class ChangeLogRecords {
  private final ChangeLogCodec codec = new ChangeLogCodec();
  /** Where entries are encoded, one at a time (a split one until its last part is made). */
  private final SegmentedBytes scratch = new SegmentedBytes();
  private final Map<String, ?> partition;
  private final String topic;
  private final String heartbeatTopic;
  private final int valueLimit;
  private final SchemaHistory history;
  private final ArrayDeque<Emitted> queue = new ArrayDeque<>();
  /** The parts of the entry being drained; null between entries. */
  private Splitting splitting;
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
  public ChangeLogRecords(Map<String, ?> partition, String topic, String heartbeatTopic, SchemaHistory history,
      long nextSeq, int valueLimit) {
    this.partition = partition;
    this.history = history;
    this.topic = topic;
    this.heartbeatTopic = heartbeatTopic;
    this.nextSeq = nextSeq;
    this.valueLimit = valueLimit;
  }

  /** Queues entries to be written after those already queued. */
  public void enqueue(List<Emitted> emitted) {
    queue.addAll(emitted);
  }

  /** Whether queued entries, or parts of one, wait to be drained. */
  public boolean hasBacklog() {
    return splitting != null || !queue.isEmpty();
  }

  /**
   * Appends the records of queued entries to {@code out}, in order, until their values reach
   * {@code maxBytes} (at least one record), and tells {@code written} of each entry once its
   * records are under way: after its one record, or, for a split entry, at its first part (only
   * data entries split, and a transaction's boundary is never one). A split entry's remaining
   * parts go first on the next call.
   */
  public void drainInto(List<SourceRecord> out, long maxBytes, Consumer<Emitted> written) {
    long bytes = 0;
    while (hasBacklog() && (bytes < maxBytes || out.isEmpty())) {
      SourceRecord r;
      Emitted started = null;
      if (splitting != null) {
        r = splitting.next();
      } else {
        started = queue.poll();
        if (started.isHeartbeat()) {
          r = heartbeat(started);
        } else if (started.isSchema()) {
          // Rare and small (compressed): all its records at once.
          List<SourceRecord> parts = history.records(started.schema(), offset(started.position()));
          out.addAll(parts.subList(0, parts.size() - 1));
          r = parts.get(parts.size() - 1);
        } else {
          ChangeLogEntry entry = started.entry();
          RecordValues values = RecordValues.of(codec, entry, valueLimit, scratch);
          if (values.split()) {
            // Only the entry's place is kept: its values can be collected while the parts go out.
            splitting = new Splitting(started.position(), entry.watermark(), entry.pos(), values);
            r = splitting.next();
          } else {
            r = record(started.position(), entry.kind(), entry.watermark(), entry.pos(), values.next());
          }
        }
      }
      out.add(r);
      bytes += ((byte[]) r.value()).length;
      if (started != null) {
        written.accept(started); // after its record is in out: the task takes out's last index as a boundary
      }
    }
  }

  /** The parts of one entry still to be built. */
  private final class Splitting {
    private final SourcePosition position;
    private final Watermark watermark;
    private final long pos;
    private final RecordValues values;

    Splitting(SourcePosition position, Watermark watermark, long pos, RecordValues values) {
      this.position = position;
      this.watermark = watermark;
      this.pos = pos;
      this.values = values;
    }

    SourceRecord next() {
      SourceRecord r = record(position, MessageKind.DATA, watermark, pos, values.next());
      if (!values.hasNext()) {
        splitting = null;
      }
      return r;
    }
  }

  private Map<String, Object> offset(SourcePosition position) {
    if (position != lastPosition) {
      lastPosition = position;
      lastOffset = lastPosition.toOffset();
    }
    return lastOffset;
  }

  private SourceRecord heartbeat(Emitted e) {
    ConnectHeaders headers = new ConnectHeaders();
    headers.addString(ChangeLogHeaders.REPLICA_VERSION, e.position().replicaVersion().toString());
    String w = e.position().lastCommit().toString();
    headers.addString(ChangeLogHeaders.WATERMARK, w);
    byte[] value = ("{\"heartbeat\":{\"watermark\":\"" + w + "\"}}").getBytes(StandardCharsets.UTF_8);
    return new ChangeLogRecord(partition, offset(e.position()), heartbeatTopic, Schema.BYTES_SCHEMA, value, headers);
  }

  /** A change-log record with {@code value}: an entry's encoding, or one of its parts. */
  private SourceRecord record(SourcePosition position, MessageKind kind, Watermark watermark, long pos,
      byte[] value) {
    ConnectHeaders headers = new ConnectHeaders();
    headers.addString(ChangeLogHeaders.REPLICA_VERSION, position.replicaVersion().toString());
    headers.addString(ChangeLogHeaders.KIND, kind.wireName());
    headers.addString(ChangeLogHeaders.WATERMARK, watermark.toString());
    headers.addString(ChangeLogHeaders.POS, Long.toString(pos));
    headers.addString(ChangeLogHeaders.PROTOCOL_VERSION, Integer.toString(ChangeLogEntry.PROTOCOL_VERSION));
    headers.addString(ChangeLogHeaders.SEQ, Long.toString(nextSeq++));
    return new ChangeLogRecord(partition, offset(position), topic, Schema.BYTES_SCHEMA, value, headers);
  }
}
