package io.pg2lite.source.debezium;

import io.pg2lite.source.config.SourceConfig;
import io.pg2lite.source.replication.ReplicationEvent;
import io.pg2lite.source.replication.ReplicationStream;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.Supplier;
import org.apache.kafka.connect.source.SourceRecord;
import org.apache.kafka.connect.source.SourceTaskContext;

/**
 * {@link ReplicationStream} over Debezium's Postgres task: we create the task (Debezium's, with
 * only its pgoutput metadata look-up replaced, see {@link RelationTypedPostgresTask}), give it a
 * context whose offset reader answers from pg2lite's offsets, and map its records to
 * {@link ReplicationEvent}s.
 *
 * <p>Acknowledgement: Debezium's {@code commit()} only flags that a commit is due; on its next
 * poll it reads the offsets back from storage (ours, through {@link PrefixedOffsetReader}) and
 * confirms their {@code lsn_commit} to the slot. Connect writes those offsets only after Kafka
 * stored the records, which is exactly the durability rule we need.
 */
public final class DebeziumReplicationStream implements ReplicationStream {
  private final Map<String, String> properties;
  private final RelationTypedPostgresTask task = new RelationTypedPostgresTask();
  private final DebeziumEventMapper mapper;
  private final SourceTaskContext context;
  private final Supplier<Map<String, ?>> storedOffset;

  /**
   * @param storedOffset reads pg2lite's stored offsets (which hold Debezium's position) from Connect's store
   */
  public DebeziumReplicationStream(SourceConfig config, SourceTaskContext context,
      Supplier<Map<String, ?>> storedOffset) {
    String logicalName = "pg2lite_" + config.slot;
    this.properties = DebeziumProperties.of(config, logicalName);
    this.mapper = new DebeziumEventMapper(logicalName);
    this.context = context;
    this.storedOffset = storedOffset;
  }

  /** The largest batch one poll returns: a smaller one means the stream has caught up. */
  public int batchSize() {
    return Integer.parseInt(properties.get("max.batch.size"));
  }

  @Override
  public void start() {
    PrefixedOffsetReader offsets = new PrefixedOffsetReader(storedOffset);
    task.initialize(new EmbeddedTaskContext(properties, offsets, context));
    task.start(properties);
  }

  @Override
  public List<ReplicationEvent> poll() throws InterruptedException {
    List<SourceRecord> records = task.poll();
    if (records == null || records.isEmpty()) {
      return List.of();
    }
    List<ReplicationEvent> events = new ArrayList<>(records.size());
    for (SourceRecord r : records) {
      ReplicationEvent e = mapper.map(r);
      if (e != null) {
        events.add(e);
      }
    }
    return events;
  }

  @Override
  public void acknowledgeStoredPositions() throws InterruptedException {
    task.commit();
  }

  @Override
  public void close() {
    task.stop();
  }
}
