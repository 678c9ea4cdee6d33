package io.pg2lite.source;

import io.pg2lite.source.config.SourceConfig;
import io.pg2lite.source.debezium.DebeziumReplicationStream;
import io.pg2lite.source.kafka.ChangeLogRecords;
import io.pg2lite.source.kafka.ChangeLogTopic;
import io.pg2lite.source.metrics.SourceMetrics;
import io.pg2lite.source.replication.ReplicationEvent;
import io.pg2lite.source.replication.ReplicationStream;
import io.pg2lite.source.transaction.Emitted;
import io.pg2lite.source.transaction.SourcePosition;
import io.pg2lite.source.transaction.TransactionAssembler;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
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
 * <p>Exactly-once: when the worker gives a transaction context (connector-defined boundaries),
 * each upstream commit, rollback or heartbeat record closes a Kafka transaction, so a
 * read_committed consumer sees upstream transactions whole or not at all.
 */
public class Pg2liteSourceTask extends SourceTask {
  private ReplicationStream stream;
  private TransactionAssembler assembler;
  private ChangeLogRecords records;
  private TransactionContext transactions;
  private SourceMetrics metrics;
  private List<Emitted> pending = List.of();

  @Override
  public String version() {
    return Version.get();
  }

  @Override
  public void start(Map<String, String> props) {
    SourceConfig config = new SourceConfig(props);
    Map<String, String> partition = Map.of("database", config.database, "slot", config.slot);
    SourcePosition stored = SourcePosition.fromOffset(context.offsetStorageReader().offset(partition));
    ChangeLogTopic topic = new ChangeLogTopic(config.kafkaBootstrapServers, config.kafkaClientProps);
    topic.ensure(config.topic, config.createTopics, config.topicReplicationFactor);
    topic.ensure(config.heartbeatTopic, config.createTopics, config.topicReplicationFactor);
    SourceStartup.State state = new SourceStartup(config).prepare(stored, topic);
    assembler = new TransactionAssembler(state.position(), state.schema());
    pending = state.pending();
    records = new ChangeLogRecords(partition, config.topic, config.heartbeatTopic);
    transactions = context.transactionContext();
    metrics = SourceMetrics.register(config.connectorName, config.slot);
    stream = new DebeziumReplicationStream(config, context, partition);
    stream.start();
  }

  @Override
  public List<SourceRecord> poll() throws InterruptedException {
    List<Emitted> emitted;
    if (!pending.isEmpty()) {
      emitted = pending;
      pending = List.of();
    } else {
      List<ReplicationEvent> events = stream.poll();
      if (events.isEmpty()) {
        return null;
      }
      emitted = new ArrayList<>(events.size() + 2);
      for (ReplicationEvent e : events) {
        emitted.addAll(assembler.accept(e));
      }
    }
    List<SourceRecord> out = new ArrayList<>(emitted.size());
    for (Emitted e : emitted) {
      SourceRecord r = records.toRecord(e);
      out.add(r);
      metrics.recordEmitted(e);
      if (transactions != null && e.endsTransaction()) {
        transactions.commitTransaction(r);
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
    if (metrics != null) {
      metrics.close();
    }
  }
}
