package io.pg2lite.source.transaction;

import static io.pg2lite.source.schema.Schemas.col;
import static io.pg2lite.source.schema.Schemas.pk;
import static io.pg2lite.source.schema.Schemas.schema;
import static io.pg2lite.source.schema.Schemas.table;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pg2lite.protocol.message.Begin;
import io.pg2lite.protocol.message.ChangeLogEntry;
import io.pg2lite.protocol.message.Commit;
import io.pg2lite.protocol.message.DataChange;
import io.pg2lite.protocol.message.MessageKind;
import io.pg2lite.protocol.schema.QualifiedName;
import io.pg2lite.protocol.value.Row;
import io.pg2lite.protocol.value.Value;
import io.pg2lite.protocol.watermark.Lsn;
import io.pg2lite.protocol.watermark.Watermark;
import io.pg2lite.source.replication.ReplicationEvent;
import io.pg2lite.source.replication.ReplicationEvent.RowOp;
import io.pg2lite.source.schema.ProtocolSpecs;
import io.pg2lite.source.schema.SchemaTracker;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class TransactionAssemblerTest {
  private static final QualifiedName T = new QualifiedName("public", "t");
  private static final Watermark REPLICA = Watermark.fromLsn("0/1000");

  private final TransactionAssembler assembler = new TransactionAssembler(
      new SourcePosition(REPLICA, REPLICA.nextMinor(), null),
      new SchemaTracker(schema(table(1, "t", List.of(col("id", 1, "int4", true), col("v", 2, "text", false)),
          pk("t_pkey", "id"))), new ProtocolSpecs(true)));

  private List<Emitted> feed(ReplicationEvent... events) {
    List<Emitted> out = new ArrayList<>();
    for (ReplicationEvent e : events) {
      out.addAll(assembler.accept(e));
    }
    return out;
  }

  private static ReplicationEvent.RowChange insert(long tx, int id) {
    return new ReplicationEvent.RowChange(tx, RowOp.INSERT, T, List.of("id"), null,
        Row.of("id", Value.of(id), "v", Value.of("x")));
  }

  private static ReplicationEvent.TxEnd end(long tx, String lsn) {
    return new ReplicationEvent.TxEnd(tx, Lsn.parse(lsn), 1, Map.of("lsn_commit", Lsn.parse(lsn).value()));
  }

  @Test
  void beginAndChangesCarryThePreCommitWatermarkAndCommitItsLsn() {
    List<Emitted> out = feed(new ReplicationEvent.TxBegin(7, null), insert(7, 1), insert(7, 2), end(7, "0/2000"),
        new ReplicationEvent.TxBegin(8, null), insert(8, 3), end(8, "0/3000"));
    List<ChangeLogEntry> log = out.stream().map(Emitted::entry).toList();
    Watermark pre1 = REPLICA.nextMajor();
    assertEquals(List.of(pre1, pre1, pre1, Watermark.fromLsn("0/2000")), log.subList(0, 4).stream()
        .map(ChangeLogEntry::watermark).toList());
    assertEquals(List.of(0L, 1L, 2L, 3L), log.subList(0, 4).stream().map(ChangeLogEntry::pos).toList());
    assertEquals(2, ((Commit) log.get(3).message()).changes());
    assertEquals(Watermark.fromLsn("0/2000").nextMajor(), log.get(4).watermark());
    assertEquals(Watermark.fromLsn("0/3000"), log.get(6).watermark());
    for (int i = 1; i < log.size(); i++) {
      assertTrue(log.get(i).watermark().compareTo(log.get(i - 1).watermark()) >= 0, "non-decreasing at " + i);
    }
  }

  @Test
  void aTransactionThatChangesTheSchemaRecordsItBeforeItsCommit() {
    io.pg2lite.source.schema.PublishedSchema after = schema(table(1, "t", List.of(col("id", 1, "int4", true),
        col("v", 2, "text", false), col("n", 3, "int4", false)), pk("t_pkey", "id")));
    byte[] ddl = ("{\"type\":\"ddlUpdate\",\"tag\":\"ALTER TABLE\",\"schema\":"
        + io.pg2lite.source.schema.PublishedSchemaWriter.toJson(after) + "}").getBytes(java.nio.charset.StandardCharsets.UTF_8);
    List<Emitted> out = feed(new ReplicationEvent.TxBegin(7, null), insert(7, 1), end(7, "0/2000"),
        new ReplicationEvent.TxBegin(8, null), new ReplicationEvent.Message(8L, SchemaTracker.DDL_MESSAGE_PREFIX, ddl),
        end(8, "0/3000"));
    assertTrue(out.subList(0, 3).stream().noneMatch(Emitted::isSchema), "no schema change, no schema record");
    Emitted recorded = out.get(out.size() - 2);
    assertTrue(recorded.isSchema());
    assertEquals(Watermark.fromLsn("0/3000"), recorded.schema().at(), "the schema holds from its commit");
    assertEquals(after, recorded.schema().schema());
    assertEquals(Watermark.fromLsn("0/2000"), recorded.position().lastCommit(),
        "written with the transaction's records, before its commit moves the position");
    assertTrue(out.get(out.size() - 1).entry().message() instanceof Commit);
  }

  @Test
  void positionsMoveOnlyAtCommits() {
    List<Emitted> out = feed(new ReplicationEvent.TxBegin(7, null), insert(7, 1), end(7, "0/2000"));
    assertEquals(REPLICA.nextMinor(), out.get(0).position().lastCommit(), "begin keeps the previous position");
    assertEquals(REPLICA.nextMinor(), out.get(1).position().lastCommit());
    assertEquals(Watermark.fromLsn("0/2000"), out.get(2).position().lastCommit());
    assertTrue(out.get(2).endsTransaction());
    assertTrue(!out.get(0).endsTransaction() && !out.get(1).endsTransaction());
    assertEquals(Map.of("lsn_commit", Lsn.parse("0/2000").value()), out.get(2).position().upstream());
  }

  @Test
  void aTransactionWithoutChangesOnlyMovesThePosition() {
    List<Emitted> out = feed(new ReplicationEvent.TxBegin(7, null),
        new ReplicationEvent.Message(7L, "pg2lite.heartbeat", new byte[0]), end(7, "0/2000"));
    assertEquals(1, out.size());
    assertTrue(out.get(0).isHeartbeat());
    assertEquals(Watermark.fromLsn("0/2000"), out.get(0).position().lastCommit());
  }

  @Test
  void heartbeatsInsideATransactionAreIgnored() {
    assertEquals(2, feed(new ReplicationEvent.TxBegin(7, null), insert(7, 1)).size());
    assertEquals(List.of(), feed(new ReplicationEvent.Heartbeat(Map.of("lsn", 1L))));
    List<Emitted> outside = feed(end(7, "0/2000"), new ReplicationEvent.Heartbeat(Map.of("lsn", 2L)));
    assertTrue(outside.get(1).isHeartbeat());
  }

  @Test
  void aTransactionAtOrBelowTheLastCommitIsNotWrittenAgain() {
    feed(new ReplicationEvent.TxBegin(7, null), insert(7, 1), end(7, "0/2000"));
    assertEquals(List.of(), feed(new ReplicationEvent.TxBegin(7, null), insert(7, 1), end(7, "0/2000")).stream()
        .filter(e -> !e.isHeartbeat() && e.entry().kind() == MessageKind.COMMIT).toList());
  }

  @Test
  void updatesCarryTheOldKeyOnlyWhenTheUpstreamSentOne() {
    List<Emitted> out = feed(new ReplicationEvent.TxBegin(7, null),
        new ReplicationEvent.RowChange(7, RowOp.UPDATE, T, List.of("id"), null, Row.of("id", Value.of(1))),
        new ReplicationEvent.RowChange(7, RowOp.UPDATE, T, List.of("id"),
            Row.of("id", Value.of(1), "v", Value.NULL), Row.of("id", Value.of(2), "v", Value.of("x"))),
        new ReplicationEvent.RowChange(7, RowOp.DELETE, T, List.of("id"), Row.of("id", Value.of(2), "v", Value.NULL),
            null));
    assertNull(((DataChange.Update) out.get(1).entry().message()).key());
    assertEquals(Row.of("id", Value.of(1)), ((DataChange.Update) out.get(2).entry().message()).key());
    assertEquals(Row.of("id", Value.of(2)), ((DataChange.Delete) out.get(3).entry().message()).key());
  }

  @Test
  void protocolViolationsOfTheUpstreamFailLoudly() {
    assertThrows(IllegalStateException.class, () -> feed(insert(7, 1)));
    feed(new ReplicationEvent.TxBegin(7, null));
    assertThrows(IllegalStateException.class, () -> feed(insert(9, 1)));
    assertThrows(IllegalStateException.class, () -> feed(end(9, "0/2000")));
  }

  /** Issue 10, defect 5: the replication stream restarted inside a transaction and sends it again. */
  @Test
  void aBeginInsideAnOpenTransactionRollsItBackAndStartsAgain() {
    List<Emitted> first = feed(new ReplicationEvent.TxBegin(7, null), insert(7, 1), insert(7, 2));
    Watermark pre = first.get(0).entry().watermark();
    List<Emitted> out = feed(new ReplicationEvent.TxBegin(7, null), insert(7, 1), insert(7, 2), end(7, "0/2000"));
    assertEquals(MessageKind.ROLLBACK, out.get(0).entry().kind());
    assertEquals(pre, out.get(0).entry().watermark(), "the rollback closes the open transaction");
    assertEquals(3, out.get(0).entry().pos(), "after its begin and two changes");
    assertTrue(out.get(0).endsTransaction());
    assertEquals(REPLICA.nextMinor(), out.get(0).position().lastCommit(), "a rollback does not move the position");
    assertEquals(MessageKind.BEGIN, out.get(1).entry().kind());
    assertEquals(pre, out.get(1).entry().watermark(), "sent again under the same pre-commit watermark");
    assertEquals(0, out.get(1).entry().pos());
    assertEquals(MessageKind.COMMIT, out.get(4).entry().kind());
    assertEquals(Watermark.fromLsn("0/2000"), out.get(4).entry().watermark());
  }

  /** Issue 11: the stream broke (Postgres restarted) inside a transaction: it is closed at once. */
  @Test
  void anInterruptedStreamRollsBackTheOpenTransactionAtOnce() {
    Watermark pre = feed(new ReplicationEvent.TxBegin(7, null), insert(7, 1)).get(0).entry().watermark();
    List<Emitted> cut = feed(new ReplicationEvent.Interrupted("connection reset"));
    assertEquals(1, cut.size());
    assertEquals(MessageKind.ROLLBACK, cut.get(0).entry().kind());
    assertEquals(pre, cut.get(0).entry().watermark());
    assertEquals(2, cut.get(0).entry().pos());
    assertTrue(!assembler.inTransaction(), "nothing is open: a Kafka transaction may close at the rollback");
    assertEquals(List.of(), feed(new ReplicationEvent.Interrupted("again")), "nothing open, nothing to close");
    List<Emitted> again = feed(new ReplicationEvent.TxBegin(7, null), insert(7, 1), end(7, "0/2000"));
    assertEquals(List.of(MessageKind.BEGIN, MessageKind.DATA, MessageKind.COMMIT),
        again.stream().map(e -> e.entry().kind()).toList(), "sent again whole, with no second rollback");
    assertEquals(pre, again.get(0).entry().watermark());
  }

  /** A transaction sent again after its commit was written: the repeat is rolled back, not left open. */
  @Test
  void aRepeatOfAWrittenTransactionIsRolledBack() {
    feed(new ReplicationEvent.TxBegin(7, null), insert(7, 1), end(7, "0/2000"));
    List<Emitted> repeat = feed(new ReplicationEvent.TxBegin(7, null), insert(7, 1), end(7, "0/2000"));
    assertEquals(List.of(MessageKind.BEGIN, MessageKind.DATA, MessageKind.ROLLBACK),
        repeat.stream().map(e -> e.entry().kind()).toList());
    assertEquals(Watermark.fromLsn("0/2000"), repeat.get(2).position().lastCommit(), "the position stays");
    List<Emitted> next = feed(new ReplicationEvent.TxBegin(8, null), insert(8, 2), end(8, "0/3000"));
    assertEquals(MessageKind.BEGIN, next.get(0).entry().kind(), "the log is between transactions again");
  }

  @Test
  void aBeginInsideAnOpenTransactionThatWroteNothingWritesNoRollback() {
    assertEquals(List.of(), feed(new ReplicationEvent.TxBegin(7, null)));
    List<Emitted> out = feed(new ReplicationEvent.TxBegin(8, null), insert(8, 1), end(8, "0/2000"));
    assertEquals(List.of(MessageKind.BEGIN, MessageKind.DATA, MessageKind.COMMIT),
        out.stream().map(e -> e.entry().kind()).toList());
  }

  @Test
  void aRollbackClosesTheLastWrittenTransaction() {
    ChangeLogEntry lastData = new ChangeLogEntry(Watermark.parse("4e672h"), 41,
        new DataChange.Insert(new io.pg2lite.protocol.schema.Relation("public", "t",
            io.pg2lite.protocol.schema.RowKey.of("id")), Row.of("id", Value.of(1))));
    Emitted r = TransactionAssembler.rollback(lastData, new SourcePosition(REPLICA, REPLICA, null));
    assertEquals(MessageKind.ROLLBACK, r.entry().kind());
    assertEquals(Watermark.parse("4e672h"), r.entry().watermark());
    assertEquals(42, r.entry().pos());
    assertTrue(r.endsTransaction());
  }

  @Test
  void theBeginCarriesXidAndCommitTime() {
    java.time.Instant t = java.time.Instant.parse("2026-01-01T00:00:00.000001Z");
    List<Emitted> out = feed(new ReplicationEvent.TxBegin(7, t), insert(7, 1));
    Begin b = (Begin) out.get(0).entry().message();
    assertEquals(7L, b.xid());
    assertEquals(t, b.commitTime());
  }

  @Test
  void aVerifyRequestIsHandedOverAtItsCommitAndNeverFromARepeatOrACutTransaction() {
    List<io.pg2lite.backfill.verify.VerifyRequest> asked = new ArrayList<>();
    assembler.onVerifyRequest(asked::add);
    byte[] request = "{\"id\":\"v-1\",\"tables\":[{\"schema\":\"public\",\"name\":\"t\"}],\"keyFrom\":1,\"keyTo\":9}"
        .getBytes(java.nio.charset.StandardCharsets.UTF_8);
    ReplicationEvent.Message verify = new ReplicationEvent.Message(7L, io.pg2lite.backfill.verify.VerifyRequest.MESSAGE_PREFIX,
        request);
    feed(new ReplicationEvent.TxBegin(7, null), insert(7, 1), verify);
    assertEquals(List.of(), asked, "not before its commit");
    feed(new ReplicationEvent.Interrupted("connection reset")); // cut: the stream sends it again
    assertEquals(List.of(), asked);
    feed(new ReplicationEvent.TxBegin(7, null), insert(7, 1), verify, end(7, "0/2000"));
    assertEquals(1, asked.size());
    assertEquals("v-1", asked.get(0).id());
    assertEquals(new io.pg2lite.protocol.message.Verify.KeyRange(1, 9), asked.get(0).keyRange());
    feed(new ReplicationEvent.TxBegin(7, null), verify, end(7, "0/2000")); // sent again after its commit was written
    assertEquals(1, asked.size(), "a transaction already written is not asked again");
    feed(new ReplicationEvent.TxBegin(8, null), new ReplicationEvent.Message(8L,
        io.pg2lite.backfill.verify.VerifyRequest.MESSAGE_PREFIX, "not json".getBytes(java.nio.charset.StandardCharsets.UTF_8)),
        end(8, "0/3000"));
    assertEquals(1, asked.size(), "a malformed request (written by hand) is ignored, with a warning");
  }

  @Test
  void aResyncDropsTheTableAndCreatesItAgainToBeCopiedWhole() {
    List<Emitted> out = feed(new ReplicationEvent.TxBegin(7, null), new ReplicationEvent.Message(7L,
        SchemaTracker.RESYNC_MESSAGE_PREFIX, "{\"schema\":\"public\",\"name\":\"t\"}".getBytes(
            java.nio.charset.StandardCharsets.UTF_8)), end(7, "0/2000"));
    List<io.pg2lite.protocol.message.Message> changes = out.stream().filter(e -> e.entry() != null)
        .map(e -> e.entry().message()).toList();
    assertTrue(changes.stream().anyMatch(m -> m instanceof io.pg2lite.protocol.message.SchemaChange.DropTable d
        && d.id().equals(T)), "dropped: " + changes);
    io.pg2lite.protocol.message.SchemaChange.CreateTable created = changes.stream()
        .filter(m -> m instanceof io.pg2lite.protocol.message.SchemaChange.CreateTable)
        .map(m -> (io.pg2lite.protocol.message.SchemaChange.CreateTable) m).findFirst().orElseThrow();
    assertEquals(java.util.Set.of("id", "v"), created.backfill().keySet(), "every column copied");
    assertTrue(changes.get(changes.size() - 1) instanceof Commit);
    List<Emitted> unknown = feed(new ReplicationEvent.TxBegin(8, null), new ReplicationEvent.Message(8L,
        SchemaTracker.RESYNC_MESSAGE_PREFIX, "{\"schema\":\"public\",\"name\":\"gone\"}".getBytes(
            java.nio.charset.StandardCharsets.UTF_8)), end(8, "0/3000"));
    assertTrue(unknown.stream().allMatch(e -> e.entry() == null), "a table not published changes nothing");
  }
}
