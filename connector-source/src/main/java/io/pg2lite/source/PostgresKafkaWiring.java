package io.pg2lite.source;

import io.pg2lite.backfill.BackfillStream;
import io.pg2lite.backfill.postgres.PostgresConnector;
import io.pg2lite.backfill.postgres.PostgresTableCopySource;
import io.pg2lite.backfill.schedule.BackfillScheduler;
import io.pg2lite.backfill.state.BackfillRequestsCodec;
import io.pg2lite.backfill.state.BackfillStateMachine;
import io.pg2lite.source.config.SourceConfig;
import io.pg2lite.connect.failure.Healing;
import io.pg2lite.source.debezium.DebeziumPositions;
import io.pg2lite.source.debezium.DecoderSession;
import io.pg2lite.source.kafka.ChangeLogTopic;
import io.pg2lite.source.metrics.SlotReading;
import io.pg2lite.source.postgres.PostgresCatalog;
import io.pg2lite.source.postgres.PostgresConnections;
import io.pg2lite.source.replication.HealingReplicationStream;
import io.pg2lite.source.lineage.SlotGuard;
import io.pg2lite.source.lineage.StrandedReplicas;
import io.pg2lite.source.replication.ReplicationSession;
import io.pg2lite.source.replication.ReplicationStream;
import io.pg2lite.source.transaction.SourcePosition;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.function.LongSupplier;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * How the source is wired to real servers ({@link SourceWiring}): Kafka's admin client for the
 * topics, Postgres over JDBC for the start-up and the backfill copies, and the slot read through
 * Debezium's decoder ({@link DecoderSession}) in sessions healed by one
 * {@link HealingReplicationStream}.
 */
final class PostgresKafkaWiring implements SourceWiring {
  private static final Logger STREAM_LOG = LoggerFactory.getLogger(HealingReplicationStream.class);
  /** Null until first used. */
  private PostgresConnections postgres;
  private boolean closed;

  @Override
  public SourceStartup.State prepare(SourceConfig config, SourcePosition stored, String forcedNewLineage) {
    ChangeLogTopic topic = new ChangeLogTopic(config.kafkaBootstrapServers, config.kafkaClientProps);
    topic.ensure(config.topic, config.createTopics, config.topicReplicationFactor);
    topic.ensure(config.heartbeatTopic, config.createTopics, config.topicReplicationFactor);
    topic.ensure(config.schemaHistoryTopic, config.createTopics, config.topicReplicationFactor);
    return new SourceStartup(config, postgres(config), new DebeziumPositions()).prepare(stored, topic,
        forcedNewLineage);
  }

  @Override
  public ReplicationStream replication(SourceConfig config, Supplier<Map<String, ?>> storedOffset,
      Supplier<Map<String, ?>> resumeOffset) {
    Healing healing = Healing.forRetries("The replication stream of slot " + config.slot, config.retryBackoffMaxMs,
        config.retryTimeoutMs, SourceConfig.RETRY_TIMEOUT_CONFIG, STREAM_LOG).alsoTransient(DecoderSession::slotInUse);
    PostgresConnections postgres = postgres(config);
    ReplicationSession.Opener sessions = DecoderSession.opener(config, postgres);
    SlotGuard guard = new SlotGuard(config.slot, SlotGuard.onServer(config.slot, postgres::connect));
    // A lost slot is named at once, never retried, and never silently replaced (SlotGuard).
    ReplicationSession.Opener checked = guard.guarding(sessions, () -> lineageStart(resumeOffset.get()));
    return new HealingReplicationStream(config.slot, checked,
        DecoderSession.batchSize(config), config.heartbeatIntervalMs,
        () -> SourcePosition.commitLsnOf(storedOffset.get()), () -> SourcePosition.commitLsnOf(resumeOffset.get()),
        healing);
  }

  /** The LSN of the lineage's replica version (its slot's consistent point), or null without a position. */
  private static Long lineageStart(Map<String, ?> offset) {
    SourcePosition p = SourcePosition.fromOffset(offset);
    return p == null ? null : p.replicaVersion().toLsn().value();
  }

  @Override
  public java.util.function.Function<String, java.util.Optional<String>> strandedReplicas(SourceConfig config) {
    return new StrandedReplicas(new io.pg2lite.connect.kafka.ChangeLogPartition(config.kafkaBootstrapServers,
        config.kafkaClientProps), config.topic)::look;
  }

  @Override
  public BackfillStream backfill(SourceConfig config, SourceStartup.State state, LongSupplier clockMillis) {
    String stored = state.position().backfills();
    BackfillStateMachine machine = new BackfillStateMachine(
        stored == null ? List.of() : BackfillRequestsCodec.decode(stored), state.position().lastCommit(), new Random());
    PostgresConnector postgres = postgres(config).backfillConnector();
    String slotPrefix = config.slot.length() > 40 ? config.slot.substring(0, 40) : config.slot;
    return new BackfillStream(machine, new PostgresTableCopySource(postgres, slotPrefix, config.backfillBatchRows * 4),
        new BackfillScheduler(config.backfillTransactionBatches, config.backfillLiveBudgetMs), config.backfillBatchRows,
        state.lastWritten(), clockMillis).maxRowsPerSecond(config.backfillMaxRowsPerSecond)
        .holdUntilCommitAtOrAbove(state.backfillHold()).openInBackground();
  }

  @Override
  public io.pg2lite.backfill.verify.VerifyStream verify(SourceConfig config, SourceStartup.State state,
      java.util.function.Predicate<io.pg2lite.protocol.schema.QualifiedName> beingCopied, LongSupplier clockMillis) {
    PostgresConnector postgres = postgres(config).backfillConnector();
    String slotPrefix = config.slot.length() > 40 ? config.slot.substring(0, 40) : config.slot;
    return new io.pg2lite.backfill.verify.VerifyStream(
        new io.pg2lite.backfill.postgres.PostgresVerifySource(postgres, slotPrefix, config.backfillBatchRows * 4),
        state.schema()::verifyTable, state.schema()::publishedTables, beingCopied, state.position().lastCommit(),
        state.position().verifies(), clockMillis)
        .every(config.verifyIntervalMs).maxRowsPerSecond(config.backfillMaxRowsPerSecond).readInBackground();
  }

  /** A short connection per reading (the metrics read at most one every 5 s). */
  @Override
  public SlotReading slot(SourceConfig config) {
    try (Connection c = postgres(config).connect()) {
      PostgresCatalog.SlotState slot = new PostgresCatalog(c).slot(config.slot);
      return slot == null ? SlotReading.MISSING : new SlotReading(slot.lagBytes(), slot.status());
    } catch (SQLException | RuntimeException e) {
      return SlotReading.UNKNOWN;
    }
  }

  /**
   * The task's connection settings, TLS files included, opened on first use and kept for the
   * task's life: every start-up attempt and reconnect uses the same files.
   */
  private synchronized PostgresConnections postgres(SourceConfig config) {
    if (closed) {
      throw new IllegalStateException("the task is stopping");
    }
    if (postgres == null) {
      postgres = PostgresConnections.open(config);
    }
    return postgres;
  }

  /** Deletes the TLS files; the task has stopped its streams first. */
  @Override
  public synchronized void close() {
    closed = true;
    if (postgres != null) {
      postgres.close();
    }
  }
}
