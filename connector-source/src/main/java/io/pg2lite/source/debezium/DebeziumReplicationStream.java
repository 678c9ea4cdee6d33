package io.pg2lite.source.debezium;

import io.pg2lite.connect.failure.Backoff;
import io.pg2lite.source.config.SourceConfig;
import io.pg2lite.source.replication.ReplicationEvent;
import io.pg2lite.source.replication.ReplicationStream;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.Supplier;
import org.apache.kafka.connect.source.SourceRecord;
import org.apache.kafka.connect.source.SourceTaskContext;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

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
 *
 * <p>A failure of Debezium's start-up schema read ({@link StartupSchemaRead}: the catalog changed
 * under it) restarts Debezium from the same stored position after a short wait, for at most a
 * minute; only a failure before the first record qualifies, so nothing is repeated or lost.
 */
public final class DebeziumReplicationStream implements ReplicationStream {
  private final Map<String, String> properties;
  private static final Logger LOG = LoggerFactory.getLogger(DebeziumReplicationStream.class);
  /** Replaced on a restart (task thread); read by {@link #acknowledgeStoredPositions} from Connect's committer. */
  private volatile RelationTypedPostgresTask task;
  private volatile boolean closed;
  /** Whether Debezium has returned a record since it was last started (its schema read is over). */
  private boolean streaming;
  private final Backoff restarts = new Backoff(Duration.ofMillis(500), Duration.ofSeconds(5), Duration.ofMinutes(1),
      System::currentTimeMillis);
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
  public synchronized void start() {
    if (closed) {
      return;
    }
    PrefixedOffsetReader offsets = new PrefixedOffsetReader(storedOffset);
    RelationTypedPostgresTask created = new RelationTypedPostgresTask();
    streaming = false;
    created.initialize(new EmbeddedTaskContext(properties, offsets, context));
    task = created;
    created.start(properties);
  }

  @Override
  public List<ReplicationEvent> poll() throws InterruptedException {
    List<SourceRecord> records;
    try {
      records = task.poll();
    } catch (RuntimeException e) {
      if (streaming || !StartupSchemaRead.failed(e)) {
        throw e;
      }
      long wait = restarts.next();
      if (wait < 0) {
        throw e;
      }
      LOG.warn("Debezium's start-up schema read failed while the catalog changed ({}); starting it again from the "
          + "same position in {} ms", rootMessage(e), wait);
      synchronized (this) {
        task.stop();
      }
      Thread.sleep(wait);
      start();
      return List.of();
    }
    if (records == null || records.isEmpty()) {
      return List.of();
    }
    streaming = true;
    restarts.reset();
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
  public synchronized void close() {
    closed = true;
    if (task != null) {
      task.stop();
    }
  }

  private static String rootMessage(Throwable e) {
    Throwable t = e;
    while (t.getCause() != null && t.getCause() != t) {
      t = t.getCause();
    }
    return t.getMessage();
  }
}
