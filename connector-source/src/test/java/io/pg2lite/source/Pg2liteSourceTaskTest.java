package io.pg2lite.source;

import static io.pg2lite.source.schema.Schemas.col;
import static io.pg2lite.source.schema.Schemas.pk;
import static io.pg2lite.source.schema.Schemas.schema;
import static io.pg2lite.source.schema.Schemas.table;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pg2lite.backfill.BackfillStream;
import io.pg2lite.backfill.schedule.BackfillScheduler;
import io.pg2lite.backfill.state.BackfillStateMachine;
import io.pg2lite.protocol.codec.ChangeLogCodec;
import io.pg2lite.protocol.message.Begin;
import io.pg2lite.protocol.message.ChangeLogEntry;
import io.pg2lite.protocol.message.ChangeLogHeaders;
import io.pg2lite.protocol.message.Commit;
import io.pg2lite.protocol.message.DataChange;
import io.pg2lite.protocol.message.Rollback;
import io.pg2lite.protocol.schema.QualifiedName;
import io.pg2lite.protocol.value.Row;
import io.pg2lite.protocol.value.Value;
import io.pg2lite.protocol.watermark.Lsn;
import io.pg2lite.protocol.watermark.Watermark;
import io.pg2lite.protocol.parts.PartJoiner;
import io.pg2lite.source.config.SourceConfig;
import io.pg2lite.source.metrics.SlotReading;
import io.pg2lite.source.kafka.RecordLimit;
import io.pg2lite.source.kafka.SchemaHistory;
import io.pg2lite.source.lineage.LineageLost;
import io.pg2lite.source.replication.ReplicationEvent;
import io.pg2lite.source.replication.ReplicationEvent.RowOp;
import io.pg2lite.source.replication.ReplicationStream;
import io.pg2lite.source.schema.ProtocolSpecs;
import io.pg2lite.source.schema.SchemaTracker;
import io.pg2lite.source.transaction.SourcePosition;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Deque;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.function.LongSupplier;
import java.util.function.Supplier;
import org.apache.kafka.connect.errors.RetriableException;
import org.apache.kafka.connect.source.SourceRecord;
import org.apache.kafka.connect.source.SourceTaskContext;
import org.apache.kafka.connect.source.TransactionContext;
import org.apache.kafka.connect.storage.OffsetStorageReader;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * {@link Pg2liteSourceTask#poll()} over a scripted replication stream (no Postgres, no Kafka):
 * transaction boundaries, watermarks and positions as docs/protocol.md states them, records split
 * across polls, a stream interrupted inside a transaction, the exactly-once commit points and the
 * start-up retry.
 */
class Pg2liteSourceTaskTest {
  private static final QualifiedName T = new QualifiedName("public", "t");
  /** The replica version; the log's last commit is the first-start transaction V.01. */
  private static final Watermark V = Watermark.fromLsn("0/1000");
  private static final String TOPIC = "changes";

  private final ChangeLogCodec codec = new ChangeLogCodec();
  private final FakeStream stream = new FakeStream();
  private final MutableClock clock = new MutableClock();
  private final List<SourceRecord> kafkaCommits = new ArrayList<>();
  private final Deque<RuntimeException> prepareFailures = new ArrayDeque<>();
  private int prepared;
  /** The forced reason of each start-up, null where none was given. */
  private final List<String> forcedReasons = new ArrayList<>();
  /** The look for stranded replicas (resync.auto): none by default. */
  private java.util.function.Function<String, java.util.Optional<String>> strandedLook =
      version -> java.util.Optional.empty();
  /** Whether the task released the wiring (its TLS files) on stop, and whether its stream was closed by then. */
  private boolean wiringClosed;
  private boolean streamClosedBeforeWiring;
  private RecordLimit recordLimit = new RecordLimit(1_048_588, RecordLimit.PRODUCER_DEFAULT);
  private boolean exactlyOnce;
  private Pg2liteSourceTask task;

  /** A replication stream that hands out scripted batches, then empty ones. */
  private static final class FakeStream implements ReplicationStream {
    final Deque<List<ReplicationEvent>> batches = new ArrayDeque<>();
    int batchSize = 100;
    boolean started;
    boolean closed;
    int acknowledgements;
    /** Thrown by the next poll, once. */
    RuntimeException failure;

    @Override public void start() { started = true; closed = false; }
    @Override public int batchSize() { return batchSize; }
    @Override public List<ReplicationEvent> poll() {
      RuntimeException f = failure;
      failure = null;
      if (f != null) {
        throw f;
      }
      return batches.isEmpty() ? List.of() : batches.poll();
    }
    @Override public void acknowledgeStoredPositions() { acknowledgements++; }
    @Override public void close() { closed = true; }
  }

  private static final class MutableClock extends Clock {
    Instant now = Instant.parse("2025-10-09T08:00:00Z");

    @Override public ZoneOffset getZone() { return ZoneOffset.UTC; }
    @Override public Clock withZone(java.time.ZoneId zone) { throw new UnsupportedOperationException(); }
    @Override public Instant instant() { return now; }
  }

  /** Everything but the replication stream is what a restart after the first-start transaction finds. */
  private final SourceWiring streams = new SourceWiring() {
    @Override
    public SourceStartup.State prepare(SourceConfig config, SourcePosition stored, String forcedNewLineage) {
      if (!prepareFailures.isEmpty()) {
        throw prepareFailures.poll();
      }
      prepared++;
      forcedReasons.add(forcedNewLineage);
      SourcePosition start = new SourcePosition(V, V.nextMinor(), Map.of("lsn", 0x1000L));
      SchemaTracker schema = new SchemaTracker(schema(table(1, "t",
          List.of(col("id", 1, "int4", true), col("v", 2, "text", false)), pk("t_pkey", "id"))), new ProtocolSpecs(true));
      return new SourceStartup.State(start, schema, List.of(), V.nextMinor(), null, 5, recordLimit,
          new SchemaHistory("t.schemas", "db/slot", Map.of("database", "db"), recordLimit.valueLimit()),
          SourceStartup.CatalogResources.NONE, null);
    }

    @Override
    public ReplicationStream replication(SourceConfig config, Supplier<Map<String, ?>> storedOffset,
        Supplier<Map<String, ?>> resumeOffset) {
      return stream;
    }

    @Override
    public BackfillStream backfill(SourceConfig config, SourceStartup.State state, LongSupplier clockMillis) {
      return new BackfillStream(new BackfillStateMachine(List.of(), state.position().lastCommit(), new Random(1)),
          request -> {
            throw new AssertionError("no backfill is required");
          }, new BackfillScheduler(1), 10, state.lastWritten(), clockMillis);
    }

    @Override
    public java.util.function.Function<String, java.util.Optional<String>> strandedReplicas(SourceConfig config) {
      return version -> strandedLook.apply(version);
    }

    @Override
    public SlotReading slot(SourceConfig config) {
      return SlotReading.UNKNOWN;
    }

    @Override
    public void close() {
      wiringClosed = true;
      streamClosedBeforeWiring = stream.closed;
    }
  };

  private Pg2liteSourceTask start(Map<String, String> extra) {
    Map<String, String> props = new HashMap<>(Map.of("name", "task-test-" + System.nanoTime(),
        "database.hostname", "db", "database.dbname", "app", "database.user", "u", "topic", TOPIC,
        "kafka.bootstrap.servers", "k:9092"));
    props.putAll(extra);
    task = new Pg2liteSourceTask(streams, clock);
    task.initialize(new SourceTaskContext() {
      @Override public Map<String, String> configs() { return props; }
      @Override public OffsetStorageReader offsetStorageReader() { return NO_OFFSETS; }
      @Override public TransactionContext transactionContext() { return exactlyOnce ? transactions : null; }
      @Override public org.apache.kafka.common.metrics.PluginMetrics pluginMetrics() { return null; }
    });
    task.start(props);
    return task;
  }

  private Pg2liteSourceTask start() {
    return start(Map.of());
  }

  @AfterEach
  void stop() {
    if (task != null) {
      task.stop();
    }
  }

  private static final OffsetStorageReader NO_OFFSETS = new OffsetStorageReader() {
    @Override public <T> Map<String, Object> offset(Map<String, T> partition) { return null; }
    @Override public <T> Map<Map<String, T>, Map<String, Object>> offsets(Collection<Map<String, T>> partitions) {
      return Map.of();
    }
  };

  /** Exactly-once commits requested without a record (after the next batch). */
  private int batchCommits;
  private final TransactionContext transactions = new TransactionContext() {
    @Override public void commitTransaction() { batchCommits++; }
    @Override public void commitTransaction(SourceRecord record) { kafkaCommits.add(record); }
    @Override public void abortTransaction() { throw new AssertionError("the task never aborts"); }
    @Override public void abortTransaction(SourceRecord record) { throw new AssertionError("the task never aborts"); }
  };

  private static ReplicationEvent begin(long tx) {
    return new ReplicationEvent.TxBegin(tx, Instant.parse("2025-10-09T08:53:20Z"));
  }

  private static ReplicationEvent insert(long tx, int id) {
    return new ReplicationEvent.RowChange(tx, RowOp.INSERT, T, List.of("id"), null,
        Row.of("id", Value.of(id), "v", Value.of("x" + id)));
  }

  private static ReplicationEvent end(long tx, String lsn) {
    return new ReplicationEvent.TxEnd(tx, Lsn.parse(lsn), 1, Map.of("lsn", Lsn.parse(lsn).value()));
  }

  private List<SourceRecord> poll(ReplicationEvent... batch) throws InterruptedException {
    if (batch.length > 0) {
      stream.batches.add(List.of(batch));
    }
    List<SourceRecord> out = task.poll();
    return out == null ? List.of() : out;
  }

  private ChangeLogEntry entry(SourceRecord r) {
    assertEquals(TOPIC, r.topic());
    return codec.decode((byte[]) r.value());
  }

  private List<ChangeLogEntry> entries(List<SourceRecord> records) {
    return records.stream().map(this::entry).toList();
  }

  private static Watermark storedCommit(SourceRecord r) {
    return SourcePosition.fromOffset(r.sourceOffset()).lastCommit();
  }

  private static String header(SourceRecord r, String key) {
    return r.headers().lastWithName(key).value().toString();
  }

  @Test
  void aTransactionIsBeginDataCommitUnderThePreCommitWatermarkThenItsCommitLsn() throws Exception {
    start();
    assertTrue(stream.started, "start() starts the stream when nothing is down");
    List<SourceRecord> out = poll(begin(7), insert(7, 1), insert(7, 2), end(7, "0/2000"));
    List<ChangeLogEntry> log = entries(out);
    assertEquals(4, log.size());
    assertInstanceOf(Begin.class, log.get(0).message());
    assertInstanceOf(DataChange.Insert.class, log.get(1).message());
    assertInstanceOf(DataChange.Insert.class, log.get(2).message());
    assertEquals(new Commit(2, Instant.parse("2025-10-09T08:53:20Z")), log.get(3).message());
    Watermark pre = V.nextMinor().majorOnly().nextMajor();
    assertEquals(List.of(pre, pre, pre, Watermark.fromLsn("0/2000")),
        log.stream().map(ChangeLogEntry::watermark).toList(), "begin and data: previous commit + 1; commit: its LSN");
    assertEquals(List.of(0L, 1L, 2L, 3L), log.stream().map(ChangeLogEntry::pos).toList());
    assertEquals(List.of("begin", "data", "data", "commit"),
        out.stream().map(r -> header(r, ChangeLogHeaders.KIND)).toList());
    assertEquals(List.of("5", "6", "7", "8"), out.stream().map(r -> header(r, ChangeLogHeaders.SEQ)).toList(),
        "sequence numbers continue from the start-up's nextSeq");
    assertEquals(List.of(V.nextMinor(), V.nextMinor(), V.nextMinor(), Watermark.fromLsn("0/2000")),
        out.stream().map(Pg2liteSourceTaskTest::storedCommit).toList(),
        "only the commit record's offset moves the stored position");
  }

  @Test
  void aTransactionSplitAcrossPollsKeepsItsOrderWatermarkAndPositions() throws Exception {
    start();
    List<SourceRecord> first = poll(begin(7), insert(7, 1));
    List<SourceRecord> second = poll(insert(7, 2), insert(7, 3));
    List<SourceRecord> third = poll(end(7, "0/2000"), begin(8), insert(8, 4), end(8, "0/3000"));
    assertEquals(2, first.size());
    assertEquals(2, second.size());
    List<SourceRecord> all = new ArrayList<>(first);
    all.addAll(second);
    all.addAll(third);
    List<ChangeLogEntry> log = entries(all);
    Watermark pre7 = V.nextMinor().majorOnly().nextMajor();
    assertEquals(List.of(0L, 1L, 2L, 3L, 4L, 0L, 1L, 2L), log.stream().map(ChangeLogEntry::pos).toList());
    assertTrue(log.subList(0, 4).stream().allMatch(e -> e.watermark().equals(pre7)), log.toString());
    assertEquals(new Commit(3, Instant.parse("2025-10-09T08:53:20Z")), log.get(4).message());
    assertEquals(Watermark.fromLsn("0/2000").nextMajor(), log.get(5).watermark(), "after commit 0/2000 comes its + 1");
    assertEquals(Watermark.fromLsn("0/3000"), log.get(7).watermark());
    for (int i = 0; i < 4; i++) {
      assertEquals(V.nextMinor(), storedCommit(all.get(i)), "an open transaction's records resume before it (" + i + ")");
    }
    assertEquals(Watermark.fromLsn("0/2000"), storedCommit(all.get(4)));
    assertEquals(Watermark.fromLsn("0/2000"), storedCommit(all.get(5)));
    assertEquals(Watermark.fromLsn("0/3000"), storedCommit(all.get(7)));
    List<String> seqs = all.stream().map(r -> header(r, ChangeLogHeaders.SEQ)).toList();
    assertEquals(List.of("5", "6", "7", "8", "9", "10", "11", "12"), seqs, "no hole between polls");
  }

  @Test
  void anInterruptionInsideATransactionWritesARollbackThenTheTransactionAgainWhole() throws Exception {
    start();
    List<SourceRecord> cut = poll(begin(7), insert(7, 1), insert(7, 2));
    List<SourceRecord> rollback = poll(new ReplicationEvent.Interrupted("connection reset"));
    List<SourceRecord> again = poll(begin(7), insert(7, 1), insert(7, 2), end(7, "0/2000"));
    Watermark pre = V.nextMinor().majorOnly().nextMajor();
    assertEquals(1, rollback.size());
    ChangeLogEntry r = entry(rollback.get(0));
    Rollback rb = assertInstanceOf(Rollback.class, r.message());
    assertTrue(rb.reason().contains("connection reset"), rb.reason());
    assertEquals(pre, r.watermark(), "a rollback carries the pre-commit watermark of what it closes");
    assertEquals(3, r.pos(), "after begin and two changes");
    assertEquals("rollback", header(rollback.get(0), ChangeLogHeaders.KIND));
    assertEquals(V.nextMinor(), storedCommit(rollback.get(0)), "a rollback does not move the position");
    List<ChangeLogEntry> repeat = entries(again);
    assertEquals(entries(cut), repeat.subList(0, 3), "the same begin and changes, under the same watermark");
    assertEquals(Watermark.fromLsn("0/2000"), repeat.get(3).watermark());
    assertEquals(3, repeat.get(3).pos());
  }

  /**
   * A row larger than a record: its parts fit the limit, come in order across polls (a poll holds
   * about {@link Pg2liteSourceTask#POLL_BYTES}), carry its watermark and pos with a sequence number
   * each, and join back into the row; the change after it waits for its last part, and the commit
   * counts the row once.
   */
  @Test
  void aRowLargerThanARecordIsWrittenInPartsOverSeveralPollsAndJoinsBack() throws Exception {
    exactlyOnce = true;
    start();
    String big = "é\"x".repeat(7_000_000); // 21 M characters, 29 MB of JSON
    List<SourceRecord> all = new ArrayList<>(poll(begin(7), new ReplicationEvent.RowChange(7, RowOp.INSERT, T,
        List.of("id"), null, Row.of("id", Value.of(1), "v", Value.of(big))), insert(7, 2), end(7, "0/2000")));
    int polls = 1;
    for (List<SourceRecord> more; !(more = poll()).isEmpty(); polls++) {
      long bytes = more.stream().mapToLong(r -> ((byte[]) r.value()).length).sum();
      assertTrue(bytes <= Pg2liteSourceTask.POLL_BYTES + recordLimit.valueLimit(), "a poll holds " + bytes);
      all.addAll(more);
    }
    assertTrue(polls >= 3, "the parts take several polls, not one: " + polls);
    PartJoiner joiner = new PartJoiner(codec);
    List<ChangeLogEntry> joined = new ArrayList<>();
    long seq = 5;
    for (SourceRecord r : all) {
      assertTrue(((byte[]) r.value()).length <= recordLimit.valueLimit());
      assertEquals(Long.toString(seq++), header(r, ChangeLogHeaders.SEQ), "one number per record, parts too");
      ChangeLogEntry e = joiner.accept(entry(r));
      if (e != null) {
        joined.add(e);
      }
    }
    assertTrue(all.size() > 30, "a 29 MB row in 1 MB records: " + all.size());
    assertEquals(4, joined.size(), "begin, the row, the next row, commit");
    assertEquals(Value.of(big), ((DataChange.Insert) joined.get(1).message()).row().get("v"));
    assertEquals(1, joined.get(1).pos());
    assertEquals(2, joined.get(2).pos());
    assertEquals(new Commit(2, Instant.parse("2025-10-09T08:53:20Z")), joined.get(3).message());
    assertTrue(kafkaCommits.size() >= 1, "the Kafka transaction was split inside the parts (16 MiB bound)");
    assertSame(all.get(all.size() - 1), kafkaCommits.get(kafkaCommits.size() - 1), "and ends at the commit");
  }

  @Test
  void aRecordLimitBelowTheTopicsCutsAtTheProducers() {
    RecordLimit l = new RecordLimit(10_000_000, RecordLimit.PRODUCER_DEFAULT);
    assertEquals(RecordLimit.PRODUCER_DEFAULT - 2048, l.valueLimit());
    String w = l.disagreement("changes").orElseThrow();
    assertTrue(w.contains("10000000") && w.contains("1048576") && w.contains("producer.override.max.request.size"), w);
    assertTrue(new RecordLimit(1_048_588, RecordLimit.PRODUCER_DEFAULT).disagreement("changes").isEmpty(),
        "Kafka's defaults agree");
  }

  @Test
  void anInterruptionBetweenTransactionsWritesNothing() throws Exception {
    start();
    poll(begin(7), insert(7, 1), end(7, "0/2000"));
    assertEquals(List.of(), poll(new ReplicationEvent.Interrupted("server shutting down")));
  }

  /**
   * P, not the last commit record: a transaction without published changes writes no change-log
   * record, only a heartbeat with its position, and the next transaction begins above it.
   */
  @Test
  void aTransactionWithoutPublishedChangesMovesThePositionAndTheNextBeginsAboveIt() throws Exception {
    start();
    List<SourceRecord> empty = poll(begin(7), new ReplicationEvent.Message(7L, "other", new byte[0]), end(7, "0/2000"));
    assertEquals(1, empty.size());
    assertEquals(TOPIC + ".heartbeat", empty.get(0).topic(), "no change-log record, a heartbeat");
    assertEquals(Watermark.fromLsn("0/2000"), storedCommit(empty.get(0)));
    List<ChangeLogEntry> next = entries(poll(begin(8), insert(8, 1), end(8, "0/3000")));
    assertEquals(Watermark.fromLsn("0/2000").nextMajor(), next.get(0).watermark());
    assertEquals(Watermark.fromLsn("0/2000").nextMajor(), next.get(1).watermark());
  }

  @Test
  void exactlyOnceCommitsAtTheLastCompleteTransactionOnceCaughtUp() throws Exception {
    exactlyOnce = true;
    start();
    List<SourceRecord> out = poll(begin(7), insert(7, 1), end(7, "0/2000"), begin(8), insert(8, 2));
    assertEquals(1, kafkaCommits.size());
    assertSame(out.get(2), kafkaCommits.get(0), "at transaction 7's commit, never inside transaction 8");
    poll(end(8, "0/3000"));
    assertEquals(2, kafkaCommits.size());
    assertEquals("commit", header(kafkaCommits.get(1), ChangeLogHeaders.KIND));
  }

  @Test
  void exactlyOnceKeepsAKafkaTransactionOpenWhileCatchingUpThenClosesItAtAHeartbeat() throws Exception {
    exactlyOnce = true;
    stream.batchSize = 3;
    start(Map.of(SourceConfig.COMMIT_INTERVAL_CONFIG, "60000"));
    poll(begin(7), insert(7, 1), end(7, "0/2000")); // a full batch: more is waiting upstream
    assertEquals(List.of(), kafkaCommits, "catching up: the Kafka transaction stays open");
    List<SourceRecord> idle = poll();
    assertEquals(1, idle.size(), "caught up: a heartbeat record closes the open Kafka transaction");
    assertEquals(TOPIC + ".heartbeat", idle.get(0).topic());
    assertEquals(Watermark.fromLsn("0/2000"), storedCommit(idle.get(0)));
    assertEquals(List.of(idle.get(0)), kafkaCommits);
    assertEquals(List.of(), poll(), "nothing open: nothing more to close");
    assertEquals(1, kafkaCommits.size());
  }

  /**
   * A transaction larger than the split bound spans several Kafka transactions: each commits
   * where the bound is reached, inside the upstream transaction, and every record of it keeps the
   * position of the commit before (a restart repeats the transaction whole, behind a rollback).
   */
  @Test
  void exactlyOnceSplitsAHugeTransactionAcrossKafkaTransactionsWithoutMovingThePosition() throws Exception {
    exactlyOnce = true;
    start(Map.of(SourceConfig.SPLIT_RECORDS_CONFIG, "3"));
    List<SourceRecord> first = poll(begin(7), insert(7, 1));
    assertEquals(List.of(), kafkaCommits, "2 records: under the bound");
    List<SourceRecord> second = poll(insert(7, 2), insert(7, 3));
    assertEquals(List.of(second.get(1)), kafkaCommits, "4 records: committed inside the upstream transaction");
    List<SourceRecord> third = poll(insert(7, 4));
    assertEquals(1, kafkaCommits.size(), "the count starts again after a commit");
    List<SourceRecord> last = poll(end(7, "0/2000"));
    assertEquals(List.of(second.get(1), last.get(0)), kafkaCommits, "caught up: the commit record closes it");
    List<SourceRecord> all = new ArrayList<>(first);
    all.addAll(second);
    all.addAll(third);
    for (SourceRecord r : all) {
      assertEquals(V.nextMinor(), storedCommit(r), "a split never moves the stored position");
    }
    assertEquals(Watermark.fromLsn("0/2000"), storedCommit(last.get(0)));
  }

  @Test
  void recordsAfterACommitCountTowardTheNextKafkaTransactionsBound() throws Exception {
    exactlyOnce = true;
    start(Map.of(SourceConfig.SPLIT_RECORDS_CONFIG, "3"));
    List<SourceRecord> first = poll(begin(7), insert(7, 1), end(7, "0/2000"), begin(8), insert(8, 2));
    assertEquals(List.of(first.get(2)), kafkaCommits, "at transaction 7's commit");
    List<SourceRecord> second = poll(insert(8, 3));
    assertEquals(List.of(first.get(2), second.get(0)), kafkaCommits,
        "begin 8 and its first change were already in the open Kafka transaction: 3 records, split");
  }

  @Test
  void theSplitBoundCountsValueBytesToo() throws Exception {
    exactlyOnce = true;
    start(Map.of(SourceConfig.SPLIT_BYTES_CONFIG, "100"));
    List<SourceRecord> out = poll(begin(7), insert(7, 1), insert(7, 2));
    long bytes = out.stream().mapToLong(r -> ((byte[]) r.value()).length).sum();
    assertTrue(bytes >= 100, "the fixture is over the bound: " + bytes);
    assertEquals(List.of(out.get(2)), kafkaCommits);
  }

  @Test
  void withoutExactlyOnceNothingIsCommitted() throws Exception {
    start(Map.of(SourceConfig.SPLIT_RECORDS_CONFIG, "1"));
    poll(begin(7), insert(7, 1), insert(7, 2), end(7, "0/2000"));
    assertEquals(List.of(), kafkaCommits, "no transaction context: Connect commits offsets on its own");
  }

  @Test
  void aTransientStartUpFailureIsRetriedFromPollAfterTheBackoff() throws Exception {
    prepareFailures.add(new RetriableException("broker not available"));
    start();
    assertEquals(0, prepared);
    assertNull(task.poll(), "still in the backoff: nothing yet");
    assertEquals(0, prepared, "not retried before the backoff has passed");
    clock.now = clock.now.plus(Duration.ofSeconds(10));
    assertNull(task.poll(), "started; the stream has nothing yet");
    assertEquals(1, prepared);
    assertTrue(stream.started);
    assertEquals(3, poll(begin(7), insert(7, 1), end(7, "0/2000")).size());
  }

  @Test
  void commitAcknowledgesAndStopClosesTheStreamsThenTheWiring() throws Exception {
    start();
    task.commit();
    assertEquals(1, stream.acknowledgements);
    task.stop();
    assertTrue(stream.closed);
    assertTrue(wiringClosed);
    assertTrue(streamClosedBeforeWiring, "the wiring is released after the streams that use its files");
    task = null;
  }

  private static LineageLost slotLost() {
    return new LineageLost("replication slot slot was invalidated by Postgres (wal_removed: ...)", "Resync.");
  }

  @Test
  void aLineageLostWhileStreamingFailsTheTaskWithoutResyncAuto() throws Exception {
    start();
    poll(begin(7), insert(7, 1), end(7, "0/2000"));
    stream.failure = new org.apache.kafka.connect.errors.ConnectException("reading failed", slotLost());
    RuntimeException thrown = org.junit.jupiter.api.Assertions.assertThrows(RuntimeException.class, () -> task.poll());
    assertTrue(LineageLost.in(thrown) != null, "the task fails with the cause: " + thrown);
    assertEquals(1, prepared, "no second start-up");
  }

  /**
   * With resync.auto the task stops streaming, waits until Kafka holds every record it handed out
   * (exactly-once: commits the open Kafka transaction, a cut upstream transaction's prefix
   * included), then runs the start-up again, which starts the new lineage.
   */
  @Test
  void withResyncAutoALineageLostWhileStreamingStartsAgainOnceKafkaHoldsEverything() throws Exception {
    exactlyOnce = true;
    start(Map.of(SourceConfig.RESYNC_AUTO_CONFIG, "true"));
    List<SourceRecord> handedOut = new ArrayList<>(poll()); // the start-up's records (none here)
    handedOut.addAll(poll(begin(7), insert(7, 1), end(7, "0/2000")));
    handedOut.addAll(poll(begin(8), insert(8, 2))); // cut by the loss
    stream.failure = slotLost();
    assertNull(task.poll(), "nothing more is written in the ended lineage");
    assertTrue(stream.closed, "the replication stream is closed at once");
    assertNull(task.poll());
    assertEquals(1, batchCommits, "the open Kafka transaction is committed, cut transaction and all");
    for (int i = 0; i < 3; i++) {
      assertNull(task.poll());
    }
    assertEquals(1, prepared, "the start-up waits for Kafka to hold every record handed out");
    handedOut.forEach(r -> task.commitRecord(r, null));
    assertNull(task.poll());
    poll();
    assertEquals(2, prepared, "then it runs again (and there begins the new lineage)");
    assertTrue(stream.started && !stream.closed, "streaming again");
  }

  /**
   * A replica stranded on the lineage (found off the task thread, every resync.check.interval.ms)
   * ends it as a lost slot would, and the next start-up is told why, so that it begins a new
   * lineage although slot, offsets and topic are fine.
   */
  @Test
  void withResyncAutoAStrandedReplicaEndsTheLineageAndForcesTheNextStartUp() throws Exception {
    String why = "consumer group connect-r is stranded";
    java.util.concurrent.atomic.AtomicReference<String> looked = new java.util.concurrent.atomic.AtomicReference<>();
    strandedLook = version -> {
      boolean first = looked.compareAndSet(null, version);
      return first ? java.util.Optional.of(why) : java.util.Optional.empty();
    };
    start(Map.of(SourceConfig.RESYNC_AUTO_CONFIG, "true", SourceConfig.RESYNC_CHECK_INTERVAL_CONFIG, "1000"));
    List<SourceRecord> handedOut = new ArrayList<>(poll());
    handedOut.addAll(poll(begin(7), insert(7, 1), end(7, "0/2000")));
    io.pg2lite.testkit.support.Await.until("the look", java.time.Duration.ofSeconds(30), () -> looked.get() != null);
    assertEquals(V.toString(), looked.get(), "the look names the lineage the task writes");
    assertNull(task.poll(), "the finding is picked up by the next poll");
    assertTrue(stream.closed, "the replication stream is closed at once");
    assertEquals(1, prepared, "the start-up waits for Kafka to hold every record handed out");
    handedOut.forEach(r -> task.commitRecord(r, null));
    assertNull(task.poll());
    poll();
    assertEquals(java.util.Arrays.asList(null, why), forcedReasons, "the second start-up is told why");
    assertTrue(stream.started && !stream.closed, "streaming again");
  }
}
