package io.pg2lite.protocol.testing;

import io.pg2lite.protocol.message.Begin;
import io.pg2lite.protocol.message.ChangeLogEntry;
import io.pg2lite.protocol.message.Commit;
import io.pg2lite.protocol.message.DataChange;
import io.pg2lite.protocol.message.Message;
import io.pg2lite.protocol.message.NewLineage;
import io.pg2lite.protocol.message.Part;
import io.pg2lite.protocol.message.Rollback;
import io.pg2lite.protocol.message.SchemaChange;
import io.pg2lite.protocol.message.Verify;
import io.pg2lite.protocol.schema.BackfillId;
import io.pg2lite.protocol.schema.BackfillStatus;
import io.pg2lite.protocol.schema.Column;
import io.pg2lite.protocol.schema.ColumnSpec;
import io.pg2lite.protocol.schema.IndexSpec;
import io.pg2lite.protocol.schema.QualifiedName;
import io.pg2lite.protocol.schema.Relation;
import io.pg2lite.protocol.schema.ReplicaIdentity;
import io.pg2lite.protocol.schema.RowKey;
import io.pg2lite.protocol.schema.SortDirection;
import io.pg2lite.protocol.schema.TableMetadata;
import io.pg2lite.protocol.schema.TableSpec;
import io.pg2lite.protocol.value.Row;
import io.pg2lite.protocol.value.Value;
import io.pg2lite.protocol.verify.Buckets;
import io.pg2lite.protocol.watermark.Watermark;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * One example entry per message kind (and one for the begin of a new lineage), mirrored by the golden files in
 * {@code docs/protocol/fixtures/<tag>.json}. The examples exercise the hard cases of the wire
 * format: an int8 beyond 2^53, an exact numeric as text, NaN as text, a SQL NULL next to an
 * absent (unchanged TOAST) column, arrays, and names that need quoting in SQL.
 */
public final class ProtocolExamples {
  /** The previous commit of every example: LSN 0/16B3748. */
  public static final Watermark PREVIOUS_COMMIT = Watermark.fromLsn("0/16B3748");
  /** The pre-commit watermark of the example transaction. */
  public static final Watermark PRE_COMMIT = PREVIOUS_COMMIT.nextMajor();
  /** The example transaction's commit: LSN 0/16B3800. */
  public static final Watermark COMMIT = Watermark.fromLsn("0/16B3800");

  public static final Relation ISSUE = new Relation("public", "issue", new RowKey(List.of("id"), ReplicaIdentity.DEFAULT));
  public static final Relation ODD_NAME = new Relation("my schema", "a\"b; DROP TABLE x",
      new RowKey(List.of("k"), null));

  private ProtocolExamples() {}

  /** Examples by wire tag, in protocol order. */
  public static Map<String, ChangeLogEntry> byTag() {
    Map<String, ChangeLogEntry> m = new LinkedHashMap<>();
    Instant commitTime = Instant.parse("2025-10-09T08:53:20.123456Z");
    put(m, PRE_COMMIT, 0, new Begin(771L, commitTime, false));
    put(m, PRE_COMMIT, 1, new DataChange.Insert(ISSUE, Row.of(
        "id", Value.of("a1"),
        "title", Value.of("héllo \"world\""),
        "n", Value.of(9_007_199_254_740_993L),
        "price", Value.of("123.4500"),
        "ratio", new Value.Float(0.1),
        "score", Value.of("NaN"),
        "done", Value.of(true),
        "tags", new Value.Array(List.of(Value.of("x"), Value.NULL)),
        "meta", Value.of("{\"x\": 1}"),
        "deleted_at", Value.NULL)));
    put(m, PRE_COMMIT, 2, new DataChange.Update(ISSUE, null, Row.of(
        "id", Value.of("a1"), "title", Value.of("yo"), "n", Value.of(-1))));
    put(m, PRE_COMMIT, 3, new DataChange.Delete(ISSUE, Row.of("id", Value.of("a1"))));
    put(m, PRE_COMMIT, 4, new DataChange.Truncate(List.of(ISSUE, ODD_NAME)));
    put(m, PRE_COMMIT, 5, new SchemaChange.CreateTable(
        new TableSpec("public", "issue", columns(), List.of("id")), metadata(16390), Map.of("id", new BackfillId(1))));
    put(m, PRE_COMMIT, 6, new SchemaChange.RenameTable(new QualifiedName("public", "issue"),
        new QualifiedName("archive", "old_issue")));
    put(m, PRE_COMMIT, 7, new SchemaChange.UpdateTableMetadata(new QualifiedName("public", "issue"),
        metadata(16390), metadata(16400)));
    put(m, PRE_COMMIT, 8, new SchemaChange.AddColumn(new QualifiedName("public", "issue"),
        new Column("created", new ColumnSpec(4, "timestamptz", "b", null, null, true, null)), metadata(16390),
        new BackfillId(4)));
    put(m, PRE_COMMIT, 9, new SchemaChange.UpdateColumn(new QualifiedName("public", "issue"),
        new Column("title", new ColumnSpec(2, "varchar", "b", null, 50, false, null)),
        new Column("headline", new ColumnSpec(2, "text", "b", null, null, true, "'untitled'"))));
    put(m, PRE_COMMIT, 10, new SchemaChange.DropColumn(new QualifiedName("public", "issue"), "legacy"));
    put(m, PRE_COMMIT, 11, new SchemaChange.DropTable(new QualifiedName("public", "scratch")));
    Map<String, SortDirection> idx = new LinkedHashMap<>();
    idx.put("title", SortDirection.ASC);
    idx.put("created", SortDirection.DESC);
    put(m, PRE_COMMIT, 12, new SchemaChange.CreateIndex(new IndexSpec("public", "issue", "issue_title_idx", true, idx)));
    put(m, PRE_COMMIT, 13, new SchemaChange.DropIndex(new QualifiedName("public", "issue_old_idx")));
    put(m, COMMIT, 14, new Commit(13, commitTime));
    Watermark backfillTx = COMMIT.nextMinor();
    // Taken before the example commit, which the log has therefore reached: backfill-completed may
    // follow in this transaction, whose watermark (COMMIT.01) is above the snapshot.
    Watermark snapshot = Watermark.fromLsn("0/16B3780");
    Relation keyOnly = new Relation("public", "issue", RowKey.of("id"));
    put(m, backfillTx, 1, new DataChange.Backfill(keyOnly, List.of("created"), snapshot,
        List.of(List.of(Value.of("a1"), Value.of("2025-10-09T08:53:20.123456Z")), List.of(Value.of("a2"), Value.NULL)),
        new BackfillStatus(2, 2, 40L)));
    put(m, backfillTx, 2, new SchemaChange.BackfillCompleted(keyOnly, List.of("created"), snapshot,
        new BackfillStatus(2, 2, null)));
    // A verification of a table keyed by one integer: ids 1 to 9,000 in 3 ranges; its snapshot was
    // asked for after the example commit (since) and taken at 0/16B3900; one row a change after
    // the commit touched is left out.
    Relation ticket = new Relation("public", "ticket", RowKey.of("id"));
    put(m, COMMIT.nextMinor().nextMinor(), 1, new Verify("v-8c1f", ticket, List.of("id", "state", "title"),
        Watermark.fromLsn("0/16B3900"), COMMIT, Verify.Result.COMPARED, null, null, new Buckets.Ranges(1, 9_000, 3),
        List.of(new Verify.Digest(3_000, "6f0c1e7a9b2d4c8e0a1b2c3d4e5f6a7b"), new Verify.Digest(2_999,
            "00ff00ff00ff00ff00ff00ff00ff00ff"), new Verify.Digest(3_000, "ffffffffffffffff0000000000000001")), 1));
    m.put("verify-not-comparable", new ChangeLogEntry(COMMIT.nextMinor().nextMinor(), 2, new Verify("v-8c1f",
        ISSUE, List.of("created", "id", "title"), Watermark.fromLsn("0/16B3900"), COMMIT, Verify.Result.NOT_COMPARABLE,
        "the table changed shape while it was read (add-column at 4e67b0)", null, null, List.of(), 0)));
    put(m, PRE_COMMIT, 1, new Part(0, 3, 2210, "{\"tag\":\"insert\",\"relation\":{\"schema\":\"public\",\"name\":\"doc\""));
    put(m, Watermark.fromLsn("0/16B3800").nextMajor(), 3, new Rollback("source restarted inside this transaction"));
    // The first-start transaction of a lineage that replaces another (same tag as the begin above).
    m.put("begin-new-lineage", new ChangeLogEntry(Watermark.fromLsn("0/3000060").nextMinor(), 0, new Begin(null, null,
        false, new NewLineage(Watermark.fromLsn("0/16B3748").toString(), "replication slot pg2lite was invalidated by "
        + "Postgres (wal_removed: the WAL it needed was removed; max_slot_wal_keep_size = 16MB)"))));
    return m;
  }

  private static void put(Map<String, ChangeLogEntry> m, Watermark w, long pos, Message msg) {
    m.put(msg.tag(), new ChangeLogEntry(w, pos, msg));
  }

  private static Map<String, ColumnSpec> columns() {
    Map<String, ColumnSpec> c = new LinkedHashMap<>();
    c.put("id", new ColumnSpec(1, "text", "b", null, null, true, null));
    c.put("title", new ColumnSpec(2, "varchar", "b", null, 50, false, null));
    c.put("tags", new ColumnSpec(3, "text[]", "b", "b", null, false, "'{}'"));
    return c;
  }

  private static TableMetadata metadata(long relationOid) {
    return new TableMetadata(2200, relationOid, Map.of("id", 1));
  }
}
