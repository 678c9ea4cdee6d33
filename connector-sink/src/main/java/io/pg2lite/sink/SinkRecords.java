package io.pg2lite.sink;

import io.pg2lite.protocol.message.ChangeLogHeaders;
import io.pg2lite.replica.apply.ApplyException;
import io.pg2lite.replica.lineage.ChangeLogRecord;
import java.nio.charset.StandardCharsets;
import org.apache.kafka.connect.errors.ConnectException;
import org.apache.kafka.connect.header.Header;
import org.apache.kafka.connect.sink.SinkRecord;

/**
 * The parts of a change-log record as Connect hands it over: the value's bytes (the connectors
 * require {@code ByteArrayConverter}; a string is accepted too) and pg2lite's string headers.
 */
final class SinkRecords {
  private SinkRecords() {}

  /** The record as the replica code takes it ({@link ChangeLogRecord}). */
  static ChangeLogRecord of(SinkRecord r) {
    return new ChangeLogRecord(r.topic(), r.kafkaPartition(), r.kafkaOffset(), seq(r),
        header(r, ChangeLogHeaders.REPLICA_VERSION), value(r));
  }

  static byte[] value(SinkRecord r) {
    Object value = r.value();
    if (value instanceof byte[] b) {
      return b;
    }
    if (value instanceof String s) {
      return s.getBytes(StandardCharsets.UTF_8);
    }
    if (value == null) {
      return null;
    }
    throw new ConnectException("change-log record value is a " + value.getClass().getName()
        + "; configure value.converter=org.apache.kafka.connect.converters.ByteArrayConverter");
  }

  /** The record's sequence number ({@link ChangeLogHeaders#SEQ}); null when it carries none (an older source). */
  static Long seq(SinkRecord r) {
    String s = header(r, ChangeLogHeaders.SEQ);
    if (s == null) {
      return null;
    }
    try {
      return Long.valueOf(s);
    } catch (NumberFormatException e) {
      throw new ApplyException(r.topic(), r.kafkaPartition(), r.kafkaOffset(), "?", "header "
          + ChangeLogHeaders.SEQ + " is not a number: " + s, e);
    }
  }

  /**
   * A pg2lite header's text. The sink's config sets {@code header.converter=ByteArrayConverter}, so
   * the bytes arrive as written. A config without that line gets the worker's converter, by default
   * Connect's {@code SimpleHeaderConverter}, which parses every header: digits become an integer
   * (whose text is the header's), but a watermark such as {@code 5123e45} becomes a floating-point
   * number whose text is not the header's any more. Reading that as a replica version would put
   * the replica in a lineage that does not exist, so it stops the task with the fix instead.
   */
  static String header(SinkRecord r, String key) {
    Header h = r.headers().lastWithName(key);
    if (h == null || h.value() == null) {
      return null;
    }
    Object v = h.value();
    if (v instanceof byte[] b) {
      return new String(b, StandardCharsets.UTF_8);
    }
    if (v instanceof String || v instanceof Byte || v instanceof Short || v instanceof Integer || v instanceof Long) {
      return v.toString();
    }
    throw new ApplyException(r.topic(), r.kafkaPartition(), r.kafkaOffset(), "?", "header " + key + " reached the"
        + " task as a " + v.getClass().getSimpleName() + " (" + v + "): the worker's header converter parsed"
        + " pg2lite's text header and may have changed it. Add \"header.converter\":"
        + " \"org.apache.kafka.connect.converters.ByteArrayConverter\" to the sink connector's config.", null);
  }
}
