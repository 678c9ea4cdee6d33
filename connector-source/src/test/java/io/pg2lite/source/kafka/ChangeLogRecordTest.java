package io.pg2lite.source.kafka;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.HashSet;
import java.util.Map;
import java.util.Set;
import org.apache.kafka.connect.data.Schema;
import org.apache.kafka.connect.header.ConnectHeaders;
import org.apache.kafka.connect.source.SourceRecord;
import org.junit.jupiter.api.Test;

/** Records are told apart by identity, which is what Connect's transaction context needs. */
class ChangeLogRecordTest {
  private static ChangeLogRecord record() {
    ConnectHeaders h = new ConnectHeaders();
    h.addString("pg2lite.kind", "data");
    return new ChangeLogRecord(Map.of("server", "s"), Map.of("lsn", 1L), "log", Schema.BYTES_SCHEMA, new byte[] {1, 2},
        h);
  }

  @Test
  void equalOnlyToItself() {
    ChangeLogRecord a = record();
    ChangeLogRecord b = record();
    assertEquals(a, a);
    assertNotEquals(a, b, "records with equal content are still two records");
    assertEquals(a.hashCode(), a.hashCode());
  }

  @Test
  void aSetFindsTheRecordItWasGivenAndNoOther() {
    // How WorkerTransactionContext uses records: commitTransaction(record) adds, shouldCommitOn removes.
    Set<SourceRecord> commitable = new HashSet<>();
    ChangeLogRecord a = record();
    commitable.add(a);
    assertTrue(!commitable.remove(record()));
    assertTrue(commitable.remove(a));
  }

  @Test
  void carriesWhatItWasBuiltWith() {
    ChangeLogRecord a = record();
    assertEquals("log", a.topic());
    assertEquals(0, a.kafkaPartition());
    assertEquals(Map.of("lsn", 1L), a.sourceOffset());
    assertEquals("data", a.headers().lastWithName("pg2lite.kind").value());
  }
}
