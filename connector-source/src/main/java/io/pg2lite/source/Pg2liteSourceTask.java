package io.pg2lite.source;

import io.pg2lite.backfill.BackfillStream;
import io.pg2lite.backfill.postgres.PostgresConnector;
import io.pg2lite.backfill.postgres.PostgresTableCopySource;
import io.pg2lite.backfill.schedule.BackfillScheduler;
import io.pg2lite.backfill.schedule.MainStreamState;
import io.pg2lite.backfill.state.BackfillRequestsCodec;
import io.pg2lite.backfill.state.BackfillStateMachine;
import io.pg2lite.connect.PluginVersion;
import io.pg2lite.source.config.SourceConfig;
import io.pg2lite.source.debezium.DebeziumReplicationStream;
import io.pg2lite.source.kafka.ChangeLogRecords;
import io.pg2lite.source.kafka.ChangeLogTopic;
import io.pg2lite.source.kafka.KafkaCommitPolicy;
import io.pg2lite.source.metrics.SourceMetrics;
import io.pg2lite.source.multiplex.StreamMultiplexer;
import io.pg2lite.source.replication.ReplicationEvent;
import io.pg2lite.source.replication.ReplicationStream;
import io.pg2lite.source.transaction.Emitted;
import io.pg2lite.source.transaction.SourcePartition;
import io.pg2lite.source.transaction.SourcePosition;
import io.pg2lite.source.transaction.TransactionAssembler;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.apache.kafka.connect.source.SourceRecord;
import org.apache.kafka.connect.source.SourceTask;
import org.apache.kafka.connect.source.TransactionContext;

/**
 * The source task: upstream events in, change-log records out. It only translates between
 * Connect and the plain classes that do the work ({@link SourceStartup},
 * {@link TransactionAssembler}, {@link ChangeLogRecords}).
 *
 * <p>Durability: records go to Connect from {@link #poll()}; Connect writes them and, once Kafka
 * has stored them, their offsets; {@link #commit()} then lets the replication stream confirm to
 * Postgres the position in those stored offsets, never anything newer.
 *
 * <p>Exactly-once: when the worker gives a transaction context (connector-defined boundaries), a
 * Kafka transaction only ever closes after a complete upstream transaction (commit, rollback or
 * heartbeat): one Kafka transaction per run of complete upstream transactions, never part of one,
 * so a read_committed consumer sees upstream transactions whole or not at all. How long a run is
 * follows {@link KafkaCommitPolicy}: long while catching up, one poll once caught up.
 */
public class Pg2liteSourceTask extends SourceTask {
  private ReplicationStream stream;
  private TransactionAssembler assembler;
  private ChangeLogRecords records;
  private TransactionContext transactions;
  private KafkaCommitPolicy commitPolicy;
  /** Records of complete upstream transactions wait in an open Kafka transaction. */
  private boolean uncommitted;
  private SourceMetrics metrics;
  private List<Emitted> pending = List.of();
  private StreamMultiplexer multiplexer;
  private int fullBatch;

  @Override
  public String version() {
    return PluginVersion.get();
  }

  @Override
  public void start(Map<String, String> props) {
    SourceConfig config = new SourceConfig(props);
    SourcePartition partition = new SourcePartition(config.database, config.slot);
    SourcePosition stored = SourcePosition.fromOffset(partition.stored(context.offsetStorageReader()));
    ChangeLogTopic topic = new ChangeLogTopic(config.kafkaBootstrapServers, config.kafkaClientProps);
    topic.ensure(config.topic, config.createTopics, config.topicReplicationFactor);
    topic.ensure(config.heartbeatTopic, config.createTopics, config.topicReplicationFactor);
    SourceStartup.State state = new SourceStartup(config).prepare(stored, topic);
    assembler = new TransactionAssembler(state.position(), state.schema());
    pending = state.pending();
    records = new ChangeLogRecords(partition.map(), config.topic, config.heartbeatTopic);
    transactions = context.transactionContext();
    metrics = SourceMetrics.register(config.connectorName, config.slot, () -> slotLag(config));
    DebeziumReplicationStream debezium = new DebeziumReplicationStream(config, context,
        () -> partition.stored(context.offsetStorageReader()));
    fullBatch = debezium.batchSize();
    commitPolicy = new KafkaCommitPolicy(config.commitIntervalMs, fullBatch, System::nanoTime);
    multiplexer = new StreamMultiplexer(backfillStream(config, state), state.position().backfills());
    stream = debezium;
    stream.start();
  }

  private static BackfillStream backfillStream(SourceConfig config, SourceStartup.State state) {
    String stored = state.position().backfills();
    BackfillStateMachine machine = new BackfillStateMachine(
        stored == null ? List.of() : BackfillRequestsCodec.decode(stored), state.position().lastCommit(), new Random());
    PostgresConnector postgres = new PostgresConnector(config.jdbcUrl(), config.user, config.password.value(),
        config.publication);
    String slotPrefix = config.slot.length() > 40 ? config.slot.substring(0, 40) : config.slot;
    return new BackfillStream(machine, new PostgresTableCopySource(postgres, slotPrefix, config.backfillBatchRows * 4),
        new BackfillScheduler(config.backfillTransactionBatches), config.backfillBatchRows, state.lastWritten(),
        System::currentTimeMillis).maxRowsPerSecond(config.backfillMaxRowsPerSecond)
        .holdUntilCommitAtOrAbove(state.backfillHold());
  }

  /** For the slot-lag metric: a short connection per reading (at most one every 5 s). */
  private static long slotLag(SourceConfig config) {
    try (java.sql.Connection c = java.sql.DriverManager.getConnection(config.jdbcUrl(), config.user,
        config.password.value())) {
      return new io.pg2lite.source.postgres.PostgresCatalog(c).slotLagBytes(config.slot);
    } catch (java.sql.SQLException e) {
      return -1;
    }
  }

  @Override
  public List<SourceRecord> poll() throws InterruptedException {
    List<Emitted> emitted;
    int batchEvents = 0;
    boolean fromStartup = !pending.isEmpty();
    if (fromStartup) {
      emitted = pending;
      pending = List.of();
    } else {
      List<ReplicationEvent> events = stream.poll();
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
      }
    }
    MainStreamState mainState = assembler.inTransaction() ? MainStreamState.IN_TRANSACTION
        : fromStartup || batchEvents >= fullBatch ? MainStreamState.BUSY : MainStreamState.IDLE;
    emitted = multiplexer.merge(emitted, mainState, assembler.position());
    if (emitted.isEmpty()) {
      return null;
    }
    List<SourceRecord> out = new ArrayList<>(emitted.size());
    SourceRecord lastBoundary = null;
    for (Emitted e : emitted) {
      SourceRecord r = records.toRecord(e);
      out.add(r);
      metrics.recordEmitted(e);
      if (e.endsTransaction()) {
        lastBoundary = r;
      }
    }
    if (transactions != null && lastBoundary != null) {
      if (commitPolicy.shouldCommit(batchEvents)) {
        transactions.commitTransaction(lastBoundary);
        uncommitted = false;
      } else {
        uncommitted = true;
      }
    }
    return out.isEmpty() ? null : out;
  }

  @Override
  public void commit() throws InterruptedException {
    if (stream != null) {
      stream.acknowledgeStoredPositions();
    }
  }

  @Override
  public void stop() {
    if (stream != null) {
      stream.close();
    }
    if (multiplexer != null) {
      multiplexer.close();
    }
    if (metrics != null) {
      metrics.close();
    }
  }
}
