package io.pg2lite.follower.kafka;

import io.pg2lite.protocol.message.ChangeLogHeaders;
import io.pg2lite.replica.apply.ApplyException;
import io.pg2lite.replica.lineage.ChangeLogRecord;
import java.nio.charset.StandardCharsets;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.common.header.Header;

/** A change-log record as the consumer hands it over, as the replica core takes it. */
public final class ConsumerRecords {
  private ConsumerRecords() {}

  public static ChangeLogRecord of(ConsumerRecord<byte[], byte[]> r) {
    String seq = header(r, ChangeLogHeaders.SEQ);
    Long s = null;
    if (seq != null) {
      try {
        s = Long.valueOf(seq);
      } catch (NumberFormatException e) {
        throw new ApplyException(r.topic(), r.partition(), r.offset(), "?", "header " + ChangeLogHeaders.SEQ
            + " is not a number: " + seq, e);
      }
    }
    return new ChangeLogRecord(r.topic(), r.partition(), r.offset(), s, header(r, ChangeLogHeaders.REPLICA_VERSION),
        r.value());
  }

  private static String header(ConsumerRecord<byte[], byte[]> r, String key) {
    Header h = r.headers().lastHeader(key);
    return h == null || h.value() == null ? null : new String(h.value(), StandardCharsets.UTF_8);
  }
}
