package io.pg2lite.replica.lineage;

import io.pg2lite.protocol.codec.ChangeLogCodec;
import io.pg2lite.protocol.message.Begin;
import io.pg2lite.protocol.message.ChangeLogEntry;
import io.pg2lite.protocol.message.Commit;
import io.pg2lite.protocol.message.DataChange;
import io.pg2lite.protocol.message.Message;
import io.pg2lite.protocol.message.NewLineage;
import io.pg2lite.protocol.message.Rollback;
import io.pg2lite.protocol.message.SchemaChange;
import io.pg2lite.protocol.schema.BackfillId;
import io.pg2lite.protocol.schema.BackfillStatus;
import io.pg2lite.protocol.schema.ColumnSpec;
import io.pg2lite.protocol.schema.IndexSpec;
import io.pg2lite.protocol.schema.Relation;
import io.pg2lite.protocol.schema.RowKey;
import io.pg2lite.protocol.schema.SortDirection;
import io.pg2lite.protocol.schema.TableMetadata;
import io.pg2lite.protocol.schema.TableSpec;
import io.pg2lite.protocol.value.Row;
import io.pg2lite.protocol.value.Value;
import io.pg2lite.protocol.watermark.Watermark;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * A change log across lineages, written the way the source writes it (docs/protocol.md): each
 * lineage starts with its first-start transaction at {@code V.01} creating tables
 * {@code <name>(id int8 key, v text)} (every column marked for backfill) and an index on
 * {@code v}; copies are backfill transactions; live transactions insert one row. Every record
 * carries its lineage's version header and the next sequence number, at the next offset of
 * topic {@value #TOPIC}, partition 0.
 */
public final class LineageLog {
  public static final String TOPIC = "log";
  /** Replica versions are LexiVersion watermarks; each later lineage's is above the earlier's. */
  public static final String V1 = "4e6720";
  public static final String V2 = "4tys80";
  public static final String V3 = "5100000";
  private final ChangeLogCodec codec = new ChangeLogCodec();
  private final List<ChangeLogRecord> records = new ArrayList<>();
  private long nextOffset;
  private long nextSeq;
  private String version;
  private Watermark lastCommit;
  private Watermark open;
  private long pos;
  private long changes;
  private long xid = 100;

  /** The first-start transaction of the log's first lineage. */
  public LineageLog firstStart(String version, String... tables) {
    return start(version, null, tables);
  }

  /** The first-start transaction of a lineage that replaces the one before ({@code begin.lineage}). */
  public LineageLog newLineage(String version, String reason, String... tables) {
    return start(version, new NewLineage(this.version, reason), tables);
  }

  private LineageLog start(String v, NewLineage lineage, String... tables) {
    version = v;
    Watermark at = Watermark.parse(v).nextMinor();
    begin(at, new Begin(null, null, false, lineage));
    for (String t : tables) {
      Map<String, ColumnSpec> cols = new LinkedHashMap<>();
      cols.put("id", ColumnSpec.of(1, "int8"));
      cols.put("v", ColumnSpec.of(2, "text"));
      change(new SchemaChange.CreateTable(new TableSpec("public", t, cols, List.of("id")),
          new TableMetadata(2200, 1000 + t.hashCode() % 1000, Map.of("id", 1)),
          Map.of("id", new BackfillId(1), "v", new BackfillId(2))));
      change(new SchemaChange.CreateIndex(new IndexSpec("public", t, t + "_v", false, Map.of("v", SortDirection.ASC))));
    }
    return commit(at);
  }

  /** A backfill transaction copying rows {@code from..from+n-1} of {@code table}, completing its copy when {@code last}. */
  public LineageLog copy(String table, long from, int n, boolean last) {
    Watermark at = lastCommit.nextMinor();
    Watermark snapshot = lastCommit.majorOnly();
    begin(at, new Begin(null, null, true));
    List<List<Value>> rows = new ArrayList<>();
    for (long id = from; id < from + n; id++) {
      rows.add(List.of(Value.of(id), Value.of(value(id))));
    }
    change(new DataChange.Backfill(relation(table), List.of("v"), snapshot, rows, null));
    if (last) {
      change(new SchemaChange.BackfillCompleted(relation(table), List.of("v"), snapshot,
          new BackfillStatus(from + n - 1, from + n - 1, null)));
    }
    return commit(at);
  }

  /** A live transaction inserting row {@code id} into {@code table}. */
  public LineageLog insert(String table, long id) {
    openInsert(table, id);
    return commit(open.nextMajor());
  }

  /** Begins a live transaction inserting row {@code id}, left open (its end comes later, or never). */
  public LineageLog openInsert(String table, long id) {
    begin(lastCommit.majorOnly().nextMajor(), new Begin(xid++, null, false));
    return change(new DataChange.Insert(relation(table), Row.of("id", Value.of(id), "v", Value.of(value(id)))));
  }

  /** Closes the open transaction with a rollback carrying {@code headerVersion}'s lineage header. */
  public LineageLog rollback(String headerVersion) {
    String v = version;
    version = headerVersion;
    add(new ChangeLogEntry(open, ++pos, new Rollback("a new lineage starts")));
    version = v;
    open = null;
    return this;
  }

  /** The topic was deleted and created again: offsets and sequence numbers start at 0. */
  public LineageLog recreateTopic() {
    nextOffset = 0;
    nextSeq = 0;
    return this;
  }

  /** Offsets that carry no record (Kafka transaction markers): the sequence numbers go on without a hole. */
  public LineageLog skipOffsets(long n) {
    nextOffset += n;
    return this;
  }

  public List<ChangeLogRecord> records() {
    return List.copyOf(records);
  }

  /** The records from index {@code from} (not offset: offsets repeat after {@link #recreateTopic}). */
  public List<ChangeLogRecord> from(int from) {
    return List.copyOf(records.subList(from, records.size()));
  }

  public int size() {
    return records.size();
  }

  /** The value a row's {@code v} column holds. */
  public static String value(long id) {
    return "row " + id;
  }

  private static Relation relation(String table) {
    return new Relation("public", table, RowKey.of("id"));
  }

  private void begin(Watermark at, Begin begin) {
    open = at;
    pos = 0;
    changes = 0;
    add(new ChangeLogEntry(at, 0, begin));
  }

  private LineageLog change(Message m) {
    add(new ChangeLogEntry(open, ++pos, m));
    changes++;
    return this;
  }

  private LineageLog commit(Watermark at) {
    add(new ChangeLogEntry(at, ++pos, new Commit(changes, null)));
    lastCommit = at;
    open = null;
    return this;
  }

  private void add(ChangeLogEntry e) {
    records.add(new ChangeLogRecord(TOPIC, 0, nextOffset++, nextSeq++, version, codec.encode(e)));
  }
}
