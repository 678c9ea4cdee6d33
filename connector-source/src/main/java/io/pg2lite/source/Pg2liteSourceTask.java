package io.pg2lite.source;

import io.pg2lite.backfill.schedule.MainStreamState;
import io.pg2lite.connect.PluginVersion;
import io.pg2lite.connect.WorkerVersion;
import io.pg2lite.connect.failure.Healing;
import io.pg2lite.connect.hold.TestHolds;
import io.pg2lite.source.config.SourceConfig;
import io.pg2lite.source.kafka.ChangeLogRecords;
import io.pg2lite.source.kafka.KafkaCommitPolicy;
import io.pg2lite.source.lineage.LineageLost;
import io.pg2lite.source.lineage.StrandedWatch;
import io.pg2lite.source.metrics.SourceMetrics;
import io.pg2lite.source.multiplex.StreamMultiplexer;
import io.pg2lite.source.replication.ReplicationEvent;
import io.pg2lite.source.replication.ReplicationStream;
import io.pg2lite.source.transaction.Emitted;
import io.pg2lite.source.transaction.SourcePartition;
import io.pg2lite.source.transaction.SourcePosition;
import io.pg2lite.source.transaction.TransactionAssembler;
import java.time.Clock;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.connect.errors.ConnectException;
import org.apache.kafka.connect.source.SourceRecord;
import org.apache.kafka.connect.source.SourceTask;
import org.apache.kafka.connect.source.SourceTaskContext;
import org.apache.kafka.connect.source.TransactionContext;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The source task: upstream events in, change-log records out. It only translates between
 * Connect and the plain classes that do the work ({@link SourceStartup},
 * {@link TransactionAssembler}, {@link StreamMultiplexer}, {@link ChangeLogRecords}); what it opens
 * against Postgres and Kafka comes from a {@link SourceWiring}.
 *
 * <p>Durability: records go to Connect from {@link #poll()}; Connect writes them and, once Kafka
 * has stored them, their offsets; {@link #commit()} then lets the replication stream confirm to
 * Postgres the position in those stored offsets, never anything newer.
 *
 * <p>Exactly-once: when the worker gives a transaction context (connector-defined boundaries), a
 * Kafka transaction closes after a complete upstream transaction (commit, rollback or heartbeat):
 * one Kafka transaction per run of complete upstream transactions. How long a run is follows
 * {@link KafkaCommitPolicy}: long while catching up, one poll once caught up. When the open Kafka
 * transaction reaches the bound of what Connect may hold in memory
 * ({@code exactly.once.split.records}/{@code .bytes}), it commits where it is, and the upstream
 * transaction then open spans several Kafka transactions; consumers act on its commit only.
 */
public class Pg2liteSourceTask extends SourceTask {
  private static final Logger LOG = LoggerFactory.getLogger(Pg2liteSourceTask.class);
  /**
   * The record values one poll returns at most (beyond its first record). Bounds what the task and
   * Connect hold of a large entry's parts: the rest are built on later polls. Below the
   * exactly-once split bound's default, so a run of parts also commits its Kafka transaction
   * every few polls rather than all at once.
   */
  static final long POLL_BYTES = 8L << 20;
  private final SourceWiring streams;
  private final Clock clock;
  private SourceConfig config;
  private SourcePartition partition;
  /** Heals the start-up: retried from {@link #poll} after a transient fault, until it succeeds or gives up. */
  private Healing startUpHealing;
  /**
   * Set by {@link #stop} (Connect's thread) under {@link #lifecycle}: a start-up that finishes
   * after it must close what it opened instead of publishing it.
   */
  private volatile boolean stopped;
  private final Object lifecycle = new Object();
  /** Null until {@link #startUp} succeeds. */
  private volatile ReplicationStream stream;
  private TransactionAssembler assembler;
  private ChangeLogRecords records;
  private TransactionContext transactions;
  private KafkaCommitPolicy commitPolicy;
  /** Records of complete upstream transactions wait in an open Kafka transaction. */
  private boolean uncommitted;
  /** Volatile: commitRecord reads it on the producer's thread (at-least-once). */
  private volatile SourceMetrics metrics;
  private List<Emitted> pending = List.of();
  private StreamMultiplexer multiplexer;
  /** Replication-stream mode's catalog reader and checker, closed with the task. */
  private AutoCloseable catalog;
  private int fullBatch;
  /**
   * Set when the lineage ended while streaming and {@code resync.auto} lets the task start a new
   * one: every record handed out must be in Kafka before the start-up reads the log's tail again.
   */
  private LineageLost lineageEnded;
  /** Records returned by {@link #poll}, and those Connect reported written ({@link #commitRecord}). */
  private long handedOut;
  private final AtomicLong written = new AtomicLong();
  /** Exactly-once: the commit of the Kafka transaction open when the lineage ended was requested. */
  private boolean endedTransactionCommitted;
  /** With {@code resync.auto}: looks for replicas stranded on the lineage; null without. */
  private StrandedWatch strandedWatch;
  /** Why the next start-up must begin a new lineage although this one could go on; null otherwise. */
  private String forcedNewLineage;

  /** The task Connect creates: Debezium, Postgres and Kafka for real, the system clock. */
  public Pg2liteSourceTask() {
    this(new PostgresKafkaWiring(), Clock.systemUTC());
  }

  /**
   * For tests: {@code streams} opens everything the task reads and writes; {@code clock} times the
   * start-up retries and the backfill. (The exactly-once commit interval runs on
   * {@link System#nanoTime}, which never goes back.)
   */
  Pg2liteSourceTask(SourceWiring streams, Clock clock) {
    this.streams = streams;
    this.clock = clock;
  }

  @Override
  public String version() {
    return PluginVersion.get();
  }

  @Override
  public void start(Map<String, String> props) {
    WorkerVersion.requireSupported(); // tasks start on every worker of the cluster, maybe older ones
    config = new SourceConfig(props);
    partition = new SourcePartition(config.database, config.slot);
    transactions = context.transactionContext();
    startUpHealing = Healing.forRetries("The source's start-up (slot " + config.slot + ")", config.retryBackoffMaxMs,
        config.retryTimeoutMs, SourceConfig.RETRY_TIMEOUT_CONFIG, LOG, clock::millis);
    try {
      // The first attempt before Connect reports the task RUNNING, so that, as long as nothing is
      // down, RUNNING means the topics and the slot exist: a sink registered next validates its
      // topic, and a write made next is streamed rather than copied by the initial backfill.
      if (config.resyncAuto) {
        strandedWatch = new StrandedWatch(streams.strandedReplicas(config), config.resyncCheckIntervalMs, config.slot);
      }
      startUp();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  /**
   * Connects to Kafka and Postgres and prepares streaming ({@link SourceWiring#prepare}); true once
   * streaming can begin. Tried once in {@link #start}, then from {@link #poll} until it succeeds,
   * because Connect fails a task whose start throws for good: a Postgres or broker that is down or
   * restarting when the task starts is a transient fault, retried with a bounded backoff while
   * the task stays RUNNING. A permanent fault throws, from either.
   */
  private boolean startUp() throws InterruptedException {
    if (!startUpHealing.attemptDue(500)) {
      return false;
    }
    ReplicationStream upstream = null;
    StreamMultiplexer mux = null;
    SourceStartup.State state = null;
    try {
      SourcePosition stored = SourcePosition.fromOffset(partition.stored(context.offsetStorageReader()));
      state = streams.prepare(config, stored, forcedNewLineage);
      TransactionAssembler assembled = new TransactionAssembler(state.position(), state.schema());
      upstream = streams.replication(config, () -> storedOfLineage(assembled.position()),
          () -> assembled.position().toOffset());
      io.pg2lite.backfill.BackfillStream backfill = streams.backfill(config, state, clock::millis);
      mux = new StreamMultiplexer(backfill, state.position().backfills(),
          streams.verify(config, state, backfill::isCopyingAny, clock::millis));
      StreamMultiplexer verifying = mux;
      assembled.onVerifyRequest(verifying::verify);
      state.schema().watchCopies(mux::copying);
      upstream.start();
      synchronized (lifecycle) { // stop() may run meanwhile, from Connect's thread
        if (stopped) {
          mux.close();
          upstream.close();
          state.catalog().close();
          return false;
        }
        assembler = assembled;
        pending = state.pending();
        records = new ChangeLogRecords(partition.map(), config.topic, config.heartbeatTopic, state.history(),
            state.nextSeq(), state.recordLimit().valueLimit());
        catalog = state.catalog();
        fullBatch = upstream.batchSize();
        commitPolicy = new KafkaCommitPolicy(config.commitIntervalMs, fullBatch, config.splitRecords,
            config.splitBytes, System::nanoTime);
        multiplexer = mux;
        stream = upstream;
        if (metrics == null) {
          metrics = SourceMetrics.register(config.connectorName, config.slot, () -> streams.slot(config));
          metrics.publishThroughWorker(context, SourceTaskContext.class);
        }
        if (state.newLineage() != null) {
          metrics.newLineage(state.newLineage());
        }
        metrics.ddlDetection(() -> assembled.detection().configName(), state.catalog()::lastCheck);
      }
      startUpHealing.succeeded();
      forcedNewLineage = null;
      if (strandedWatch != null) {
        strandedWatch.following(state.position().replicaVersion().toString());
      }
      return true;
    } catch (RuntimeException e) {
      if (mux != null) {
        mux.close();
      }
      if (upstream != null) {
        upstream.close();
      }
      if (state != null) {
        state.catalog().close();
      }
      LineageLost lost = LineageLost.in(e);
      if (lost != null && config.resyncAuto) { // the slot went between the start-up's look and the stream's
        startUpHealing.failedTransiently(lost.reason(), "starting again: the start-up begins a new lineage");
        return false;
      }
      startUpHealing.failed(e, "trying again"); // throws a permanent fault, or one that lasts too long
      return false;
    }
  }

  /**
   * The offsets Connect stored, if they are of {@code current}'s lineage: right after a new
   * lineage began they are still the old one's, whose positions mean nothing to the new slot (the
   * stream would resume from them, and confirm them, as if the slot had been recreated).
   */
  private Map<String, ?> storedOfLineage(SourcePosition current) {
    Map<String, ?> stored = partition.stored(context.offsetStorageReader());
    SourcePosition p = SourcePosition.fromOffset(stored);
    return p != null && p.replicaVersion().equals(current.replicaVersion()) ? stored : null;
  }

  @Override
  public List<SourceRecord> poll() throws InterruptedException {
    if (lineageEnded != null) {
      return awaitWrittenBeforeNewLineage();
    }
    if (stream == null && !startUp()) {
      return null;
    }
    String stranded = strandedWatch == null ? null : strandedWatch.take();
    if (stranded != null) {
      forcedNewLineage = stranded; // a replica cannot go on in this lineage: the next start-up begins one
      lineageEnded(new LineageLost(stranded, "A replica of it lost records it needs and asked for a new lineage."));
      return null;
    }
    if (!TestHolds.admits(TestHolds.TRANSACTION, config.slot, assembler.changesOfOpenTransaction())) {
      Thread.sleep(100); // held by a test (TestHolds): as idle as a quiet database
      return null;
    }
    int batchEvents = 0;
    if (!records.hasBacklog()) { // parts of a large entry (or what followed it) go first
      List<Emitted> emitted;
      boolean fromStartup = !pending.isEmpty();
      if (fromStartup) {
        emitted = pending;
        pending = List.of();
      } else {
        List<ReplicationEvent> events;
        try {
          events = stream.poll();
        } catch (RuntimeException e) {
          lineageEnded(e); // rethrows anything but a lost lineage that resync.auto lets go
          return null;
        }
        long readNanos = System.nanoTime();
        Instant readAt = Instant.now();
        batchEvents = events.size();
        if (events.isEmpty()) {
          // Caught up with complete transactions still in an open Kafka transaction: close it at a
          // heartbeat record (same position), rather than wait for the next change.
          emitted = uncommitted && !assembler.inTransaction() ? List.of(assembler.heartbeat()) : List.of();
        } else {
          emitted = new ArrayList<>(events.size() + 2);
          for (ReplicationEvent e : events) {
            emitted.addAll(assembler.accept(e));
          }
          metrics.commitStages().read(emitted, readAt, readNanos);
        }
      }
      MainStreamState mainState = assembler.inTransaction() ? MainStreamState.IN_TRANSACTION
          : fromStartup || batchEvents >= fullBatch ? MainStreamState.BUSY : MainStreamState.IDLE;
      records.enqueue(multiplexer.merge(emitted, mainState, assembler.position()));
      assembler.schema().entriesObserved(); // the backfill state has seen what the tracker made
    }
    if (!records.hasBacklog()) {
      return null;
    }
    List<SourceRecord> out = new ArrayList<>();
    int[] lastBoundary = {-1};
    records.drainInto(out, POLL_BYTES, e -> {
      metrics.recordEmitted(e);
      if (e.endsTransaction()) {
        metrics.commitStages().handed(e, out.get(out.size() - 1), System.nanoTime());
      }
      if (e.endsTransaction()) {
        lastBoundary[0] = out.size() - 1;
      }
    });
    if (transactions != null) {
      endKafkaTransaction(out, lastBoundary[0], batchEvents);
    }
    handedOut += out.size();
    return out;
  }

  /**
   * The lineage ended while streaming ({@link LineageLost}: the slot was invalidated or dropped).
   * Without {@code resync.auto} the task fails with its message. With it, the streams close and
   * {@link #poll} waits until Kafka holds every record handed out (exactly-once: the open Kafka
   * transaction is committed, a cut upstream transaction's prefix included, as when one spans
   * Kafka transactions); then the start-up runs again, reads the log's tail as it now is, closes
   * a cut transaction with a rollback and starts the new lineage ({@link SourceStartup}). One
   * path for a lineage found lost at start and one lost while streaming.
   */
  private void lineageEnded(RuntimeException e) {
    LineageLost lost = LineageLost.in(e);
    if (lost == null || !config.resyncAuto) {
      throw e;
    }
    LOG.warn("The change log's lineage ended while streaming: {}. resync.auto is on: a new lineage starts once Kafka "
        + "holds every record handed out ({} still in flight)", lost.reason(), handedOut - written.get());
    closeStreams();
    lineageEnded = lost;
    endedTransactionCommitted = transactions == null || !uncommitted && !assembler.inTransaction();
  }

  private List<SourceRecord> awaitWrittenBeforeNewLineage() throws InterruptedException {
    if (!endedTransactionCommitted) {
      transactions.commitTransaction(); // after this (empty) batch
      uncommitted = false;
      endedTransactionCommitted = true;
      return null;
    }
    if (written.get() < handedOut) {
      Thread.sleep(20);
      return null;
    }
    LOG.info("Kafka holds every record of the ended lineage; starting the new one");
    lineageEnded = null;
    return null; // the next poll runs the start-up
  }

  /** Closes what the start-up opened; {@link #poll} runs the start-up again while {@link #stream} is null. */
  private void closeStreams() {
    synchronized (lifecycle) {
      ReplicationStream s = stream;
      stream = null;
      if (s != null) {
        s.close();
      }
      if (multiplexer != null) {
        multiplexer.close();
        multiplexer = null;
      }
      closeCatalog();
      if (metrics != null) {
        metrics.commitStages().reset(); // what is queued is dropped; its marks would never be found
      }
    }
  }

  private void closeCatalog() {
    if (catalog != null) {
      try {
        catalog.close();
      } catch (Exception e) {
        LOG.debug("closing the catalog reader", e);
      }
      catalog = null;
    }
  }

  /** Counts what Kafka has (at-least-once: acknowledged; exactly-once: committed), for {@link #lineageEnded}. */
  @Override
  public void commitRecord(SourceRecord record, RecordMetadata metadata) {
    written.incrementAndGet();
    SourceMetrics m = metrics;
    if (m != null) {
      m.commitStages().acknowledged(record, System.nanoTime());
    }
  }

  /**
   * Exactly-once: whether this poll's records close the open Kafka transaction, and where
   * ({@link KafkaCommitPolicy}): at the last upstream transaction boundary ({@code boundary}, -1
   * for none) when the grouping rule says so, else at the last record when the transaction holds
   * the split bound.
   */
  private void endKafkaTransaction(List<SourceRecord> out, int boundary, int batchEvents) {
    commitPolicy.written(out.size(), valueBytes(out, 0, out.size()));
    if (boundary >= 0 && commitPolicy.shouldCommit(batchEvents)) {
      transactions.commitTransaction(out.get(boundary));
      // The records after the boundary open the next Kafka transaction: they count toward its bound.
      commitPolicy.written(out.size() - boundary - 1, valueBytes(out, boundary + 1, out.size()));
      uncommitted = false;
    } else if (commitPolicy.shouldSplit()) {
      // A huge upstream transaction: bound what Connect holds (KafkaCommitPolicy, rule 2).
      transactions.commitTransaction(out.get(out.size() - 1));
      uncommitted = false;
    } else {
      uncommitted = uncommitted || boundary >= 0;
    }
  }

  private static long valueBytes(List<SourceRecord> records, int from, int to) {
    long bytes = 0;
    for (SourceRecord r : records.subList(from, to)) {
      bytes += ((byte[]) r.value()).length;
    }
    return bytes;
  }

  @Override
  public void commit() throws InterruptedException {
    if (stream != null) {
      stream.acknowledgeStoredPositions();
    }
  }

  @Override
  public void stop() {
    synchronized (lifecycle) {
      stopped = true;
      if (strandedWatch != null) {
        strandedWatch.close();
      }
      if (stream != null) {
        stream.close();
      }
      if (multiplexer != null) {
        multiplexer.close();
      }
      closeCatalog();
      if (metrics != null) {
        metrics.close();
      }
      streams.close();
    }
  }
}
