package io.pg2lite.replica.verify;

import static io.pg2lite.replica.apply.Tables.ITEM;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pg2lite.protocol.message.SchemaChange;
import io.pg2lite.protocol.message.Verify;
import io.pg2lite.protocol.schema.BackfillId;
import io.pg2lite.protocol.schema.ColumnSpec;
import io.pg2lite.protocol.schema.Relation;
import io.pg2lite.protocol.schema.RowKey;
import io.pg2lite.protocol.schema.TableSpec;
import io.pg2lite.protocol.testing.ChangeMessages;
import io.pg2lite.protocol.value.Row;
import io.pg2lite.protocol.value.Value;
import io.pg2lite.protocol.verify.Buckets;
import io.pg2lite.protocol.watermark.Watermark;
import io.pg2lite.replica.apply.ReplicaHarness;
import io.pg2lite.replica.apply.Tables;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Verification on a real SQLite file: rows applied through the real applier, then a verify
 * transaction whose digests the test reckons from the same rows with the protocol's rule alone
 * ({@link SourceDigests}); the outcome, and its row in {@code _pg2lite.verify}.
 */
class ReplicaVerifyTest {
  private static final TableSpec ITEM_SPEC = Tables.createItem().spec();
  private static final Watermark SINCE = Watermark.fromLsn("0/200");
  private static final Buckets.Ranges THREE_RANGES = new Buckets.Ranges(1, 10, 3); // 1-4, 5-8, 9-10
  private static final String ROW_SQL = "SELECT result, detail, source_rows, replica_rows, excluded, watermark FROM "
      + "\"_pg2lite.verify\"";

  @TempDir
  Path dir;
  private final BlockingQueue<VerifyOutcome> outcomes = new LinkedBlockingQueue<>();

  private ReplicaHarness harness(String journalMode) throws Exception {
    return new ReplicaHarness(dir, journalMode, outcomes::add);
  }

  /** The next outcome, waiting for the verifier's thread. */
  private VerifyOutcome outcome() throws InterruptedException {
    VerifyOutcome o = outcomes.poll(30, TimeUnit.SECONDS);
    assertNotNull(o, "no verification outcome within 30 s");
    return o;
  }

  private static Row item(long id) {
    return Row.of("id", Value.of(id), "name", id % 3 == 0 ? Value.NULL : Value.of("item " + id), "price",
        Value.of(id + ".10"), "ok", Value.of(id % 2 == 0), "data", Value.of(String.format("\\x00ff%02x", id)), "tags",
        new Value.Array(List.of(Value.of("a" + id), Value.NULL)));
  }

  private static List<Row> items(long from, long to) {
    List<Row> rows = new ArrayList<>();
    for (long id = from; id <= to; id++) {
      rows.add(item(id));
    }
    return rows;
  }

  /** Table item with rows 1 to 10, committed at 0/200 (= {@link #SINCE}). */
  private static ChangeMessages tenItems() {
    ChangeMessages m = ChangeMessages.after("0/100").begin(1).change(Tables.createItem());
    items(1, 10).forEach(r -> m.insert(ITEM, r));
    return m.commit("0/200");
  }

  private static Verify verify(Buckets buckets, List<Row> sourceRows, long excluded) {
    return new Verify("v1", ITEM, SourceDigests.columns(ITEM_SPEC), Watermark.fromLsn("0/280"), SINCE,
        Verify.Result.COMPARED, null, null, buckets, SourceDigests.of(ITEM_SPEC, List.of("id"), buckets, sourceRows),
        excluded);
  }

  @Test
  void aReplicaEqualToTheSourceMatches() throws Exception {
    try (ReplicaHarness h = harness("WAL")) {
      Verify hashed = new Verify("v2", ITEM, SourceDigests.columns(ITEM_SPEC), Watermark.fromLsn("0/280"), SINCE,
          Verify.Result.COMPARED, null, null, new Buckets.Hashed(4),
          SourceDigests.of(ITEM_SPEC, List.of("id"), new Buckets.Hashed(4), items(1, 10)), 0);
      h.feed(tenItems().begin(2).change(verify(THREE_RANGES, items(1, 10), 0)).change(hashed).commit("0/300")
          .entries());
      for (int i = 0; i < 2; i++) {
        VerifyOutcome o = outcome();
        assertEquals(VerifyOutcome.Result.MATCH, o.result(), o.toString());
        assertEquals(10, o.replicaRows());
        assertEquals(Watermark.fromLsn("0/300").toString(), o.watermark(), "the position: the verify's commit");
      }
      assertEquals(List.of(List.of("match", 10, 10), List.of("match", 10, 10)),
          h.query("SELECT result, source_rows, replica_rows FROM \"_pg2lite.verify\" ORDER BY id"));
    }
  }

  @Test
  void aCellChangedByHandIsAMismatchNamingItsRange() throws Exception {
    try (ReplicaHarness h = harness("WAL")) {
      h.feed(tenItems().entries());
      h.execute("UPDATE item SET name = 'tampered' WHERE id = 6");
      h.feed(ChangeMessages.after("0/200").begin(2).change(verify(THREE_RANGES, items(1, 10), 0)).commit("0/300")
          .entries());
      VerifyOutcome o = outcome();
      assertEquals(VerifyOutcome.Result.MISMATCH, o.result());
      assertEquals(List.of(new VerifyOutcome.BucketDifference(1, "id 5 to 8", 4, 4)), o.differences());
      List<Object> row = h.query(ROW_SQL).get(0);
      assertEquals("mismatch", row.get(0));
      assertTrue(((String) row.get(1)).contains("id 5 to 8 (source 4 rows, replica 4)"), (String) row.get(1));
    }
  }

  @Test
  void aRowDeletedByHandIsAMismatchWithItsCounts() throws Exception {
    try (ReplicaHarness h = harness("WAL")) {
      h.feed(tenItems().entries());
      h.execute("DELETE FROM item WHERE id = 9");
      h.feed(ChangeMessages.after("0/200").begin(2).change(verify(THREE_RANGES, items(1, 10), 0)).commit("0/300")
          .entries());
      VerifyOutcome o = outcome();
      assertEquals(VerifyOutcome.Result.MISMATCH, o.result());
      assertEquals(List.of(new VerifyOutcome.BucketDifference(2, "id 9 to 10", 2, 1)), o.differences());
      assertEquals(10, o.sourceRows());
      assertEquals(9, o.replicaRows());
      assertEquals(List.of("mismatch", "1 of 3 buckets differ: id 9 to 10 (source 2 rows, replica 1)", 10, 9, 0),
          h.query(ROW_SQL).get(0).subList(0, 5));
    }
  }

  /** Rows a transaction after {@code since} wrote are left out: the source left them out too. */
  @Test
  void rowsWrittenAfterSinceAreLeftOut() throws Exception {
    try (ReplicaHarness h = harness("WAL")) {
      List<Row> untouched = new ArrayList<>(items(1, 10));
      untouched.removeIf(r -> r.get("id").equals(Value.of(3)));
      h.feed(tenItems().begin(2).update(ITEM, null, Row.of("id", Value.of(3), "name", Value.of("changed")))
          .insert(ITEM, item(11)).commit("0/250")
          .begin(3).change(verify(THREE_RANGES, untouched, 1)).commit("0/300").entries());
      VerifyOutcome o = outcome();
      assertEquals(VerifyOutcome.Result.MATCH, o.result(), String.valueOf(o.detail()));
      assertEquals(9, o.replicaRows());
      assertEquals(Arrays.asList("match", null, 9, 9, 1), h.query(ROW_SQL).get(0).subList(0, 5));
    }
  }

  /**
   * The digest is of the verify's position, not of what the applier writes next: the transaction
   * right after it (same batch, no flush between) deletes a row the source counted.
   */
  @Test
  void theDigestIsAtTheVerifysPositionNotAfterTheNextTransaction() throws Exception {
    try (ReplicaHarness h = harness("WAL")) {
      ChangeMessages m = tenItems().begin(2).change(verify(THREE_RANGES, items(1, 10), 0)).commit("0/300");
      for (int tx = 3; tx < 50; tx++) {
        m.begin(tx).delete(ITEM, Row.of("id", Value.of(tx % 10 + 1))).insert(ITEM, item(tx % 10 + 1))
            .commit("0/" + Integer.toHexString(0x300 + tx));
      }
      h.feed(m.entries());
      assertEquals(VerifyOutcome.Result.MATCH, outcome().result());
    }
  }

  @Test
  void withoutWalTheDigestIsDoneBeforeTheNextRecord() throws Exception {
    try (ReplicaHarness h = harness("DELETE")) {
      h.feed(tenItems().begin(2).change(verify(THREE_RANGES, items(1, 10), 0)).commit("0/300").entries());
      assertEquals(1, outcomes.size(), "computed on the applying thread, at the commit");
      assertEquals(VerifyOutcome.Result.MATCH, outcome().result());
      assertEquals("match", h.query(ROW_SQL).get(0).get(0));
    }
  }

  @Test
  void aTableBeingBackfilledIsNotComparable() throws Exception {
    Map<String, ColumnSpec> cols = new LinkedHashMap<>();
    cols.put("id", ColumnSpec.of(1, "int8"));
    cols.put("v", ColumnSpec.of(2, "text"));
    TableSpec spec = new TableSpec("public", "bk", cols, List.of("id"));
    Relation bk = new Relation("public", "bk", RowKey.of("id"));
    Buckets.Hashed one = new Buckets.Hashed(1);
    try (ReplicaHarness h = harness("WAL")) {
      h.feed(ChangeMessages.after("0/50").begin(1).change(new SchemaChange.CreateTable(spec, null,
              Map.of("v", new BackfillId(2)))).insert(bk, Row.of("id", Value.of(1))).commit("0/100")
          .begin(2).change(new Verify("v1", bk, List.of("id", "v"), Watermark.fromLsn("0/150"),
              Watermark.fromLsn("0/100"), Verify.Result.COMPARED, null, null, one,
              SourceDigests.of(spec, List.of("id"), one, List.of(Row.of("id", Value.of(1), "v", Value.of("x")))), 0))
          .commit("0/200").entries());
      VerifyOutcome o = outcome();
      assertEquals(VerifyOutcome.Result.NOT_COMPARABLE, o.result());
      assertEquals("the replica is still backfilling column v", o.detail());
      assertEquals(List.of("not-comparable", "the replica is still backfilling column v"),
          h.query(ROW_SQL).get(0).subList(0, 2));
    }
  }

  @Test
  void aTableTheSourceCouldNotCompareIsRecordedAsNotComparable() throws Exception {
    try (ReplicaHarness h = harness("WAL")) {
      h.feed(tenItems().begin(2).change(new Verify("v1", ITEM, SourceDigests.columns(ITEM_SPEC),
          Watermark.fromLsn("0/280"), SINCE, Verify.Result.NOT_COMPARABLE, "truncated while it was read", null, null,
          null, 0)).commit("0/300").entries());
      VerifyOutcome o = outcome();
      assertEquals(VerifyOutcome.Result.NOT_COMPARABLE, o.result());
      assertEquals(Arrays.asList("not-comparable", "the source could not compare it: truncated while it was read", null,
          null, null), h.query(ROW_SQL).get(0).subList(0, 5));
    }
  }

  @Test
  void aTableTheReplicaLacksIsNotComparable() throws Exception {
    Relation missing = new Relation("public", "nowhere", RowKey.of("id"));
    try (ReplicaHarness h = harness("WAL")) {
      h.feed(tenItems().begin(2).change(new Verify("v1", missing, List.of("id"), Watermark.fromLsn("0/280"), SINCE,
          Verify.Result.COMPARED, null, null, new Buckets.Hashed(1), List.of(new Verify.Digest(0,
              "0".repeat(32))), 0)).commit("0/300").entries());
      VerifyOutcome o = outcome();
      assertEquals(VerifyOutcome.Result.NOT_COMPARABLE, o.result());
      assertEquals("the replica has no table public.nowhere", o.detail());
    }
  }

  @Test
  void aVerificationPendingAtRestartIsRecordedAsNotCompared() throws Exception {
    try (ReplicaHarness h = harness("WAL")) {
      h.feed(tenItems().entries());
      h.replica.close();
      // What a stop between the verify's commit and its outcome leaves: the row, pending.
      try (java.sql.Connection c = java.sql.DriverManager.getConnection("jdbc:sqlite:" + h.file)) {
        VerifyRows.insertPending(c, verify(THREE_RANGES, items(1, 10), 0), Watermark.fromLsn("0/300").toString());
      }
      assertEquals("pending", h.query(ROW_SQL).get(0).get(0));
      h.open();
      List<Object> row = h.query("SELECT result, detail, checked_at FROM \"_pg2lite.verify\"").get(0);
      assertEquals(List.of("not-compared", VerifyRows.RESTARTED), row.subList(0, 2));
      assertTrue(Instant.parse((String) row.get(2)).isAfter(Instant.now().minusSeconds(60)));
    }
  }
}
