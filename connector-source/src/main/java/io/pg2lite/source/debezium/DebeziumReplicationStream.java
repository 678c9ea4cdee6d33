package io.pg2lite.source.debezium;

import io.debezium.connector.common.DebeziumTaskState;
import io.pg2lite.connect.failure.Backoff;
import io.pg2lite.connect.failure.Failures;
import io.pg2lite.source.config.SourceConfig;
import io.pg2lite.source.replication.ReplicationEvent;
import io.pg2lite.source.replication.ReplicationStream;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.Supplier;
import org.apache.kafka.connect.errors.ConnectException;
import org.apache.kafka.connect.errors.RetriableException;
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
 * <p>Transient faults ({@link Failures}: Postgres restarting, a dropped connection, and a failure
 * of Debezium's start-up schema read, {@link StartupSchemaRead}, racing a DDL) stop the Debezium
 * task, announce {@link ReplicationEvent.Interrupted}, and start a new one after a bounded
 * backoff. The new task resumes from the position after the last complete transaction this
 * stream handed out (the resume supplier), not from Connect's stored offsets: those may lag behind
 * records already handed to Connect, and Debezium would send those transactions again under
 * watermarks the assembler has moved past. Once it runs, the new task's acknowledgements read the
 * stored offsets again. A fault that outlasts the retry timeout, or any other failure, is thrown.
 */
public final class DebeziumReplicationStream implements ReplicationStream {
  private final Map<String, String> properties;
  private static final Logger LOG = LoggerFactory.getLogger(DebeziumReplicationStream.class);
  /** Replaced on a restart (task thread); read by {@link #acknowledgeStoredPositions} from Connect's committer. */
  private volatile RelationTypedPostgresTask task;
  /** Whether {@link #task} has started and not failed (acknowledgements go only to a running task). */
  private volatile boolean running;
  private volatile boolean closed;
  /** When the running task started (epoch ms). */
  private long startedAt;
  /** How long a restarted task must poll without a fault to count as healed (the longest backoff). */
  private final long healthyAfterMs;
  /** When a stopped task starts again (epoch ms), or -1 when it runs. */
  private long restartAt = -1;
  private final Backoff restarts;
  private final DebeziumEventMapper mapper;
  private final SourceTaskContext context;
  private final Supplier<Map<String, ?>> storedOffset;
  private final Supplier<Map<String, ?>> resumeOffset;

  /**
   * @param storedOffset reads pg2lite's stored offsets (which hold Debezium's position) from Connect's store
   * @param resumeOffset pg2lite's offset after the last complete transaction handed out, where a
   *     restart after a transient fault resumes
   */
  public DebeziumReplicationStream(SourceConfig config, SourceTaskContext context,
      Supplier<Map<String, ?>> storedOffset, Supplier<Map<String, ?>> resumeOffset) {
    String logicalName = "pg2lite_" + config.slot;
    this.properties = DebeziumProperties.of(config, logicalName);
    this.mapper = new DebeziumEventMapper(logicalName);
    this.context = context;
    this.storedOffset = storedOffset;
    this.resumeOffset = resumeOffset;
    this.restarts = Backoff.forRetries(config.retryBackoffMaxMs, config.retryTimeoutMs);
    this.healthyAfterMs = config.retryBackoffMaxMs;
  }

  /** The largest batch one poll returns: a smaller one means the stream has caught up. */
  @Override
  public int batchSize() {
    return Integer.parseInt(properties.get("max.batch.size"));
  }

  @Override
  public void start() {
    startFrom(storedOffset);
  }

  /**
   * Starts a Debezium task that resumes after {@code startPosition}; once it runs, its offset
   * reader answers with the stored offsets, for acknowledgements.
   */
  private synchronized void startFrom(Supplier<Map<String, ?>> startPosition) {
    if (closed) {
      return;
    }
    Map<String, ?> resume = startPosition.get();
    PrefixedOffsetReader offsets = new PrefixedOffsetReader(() -> resume);
    RelationTypedPostgresTask created = new RelationTypedPostgresTask();
    created.initialize(new EmbeddedTaskContext(properties, offsets, context));
    task = created;
    try {
      created.start(properties);
    } catch (RuntimeException e) {
      stopQuietly(created);
      throw e;
    }
    if (created.getTaskState() == DebeziumTaskState.RESTARTING) {
      // Debezium's start() swallows a retriable failure (Postgres still down: "Failed to start
      // connector, will re-attempt during polling") and would start itself again from a poll
      // after retriable.restart.connector.wait.ms (10 s), reading its position from the offset
      // reader, which by then answers with the stored offsets, not with resumePosition. Treat it
      // as the failed start it is, so that the restart is ours: from the resume position, on our
      // backoff.
      stopQuietly(created);
      throw new RetriableException("Debezium's Postgres task could not start (see its warning just before)");
    }
    offsets.answerFrom(storedOffset);
    startedAt = System.currentTimeMillis();
    running = true;
  }

  @Override
  public List<ReplicationEvent> poll() throws InterruptedException {
    if (restartAt >= 0) {
      long wait = restartAt - System.currentTimeMillis();
      if (wait > 0) {
        Thread.sleep(Math.min(wait, 500));
        return List.of();
      }
      restartAt = -1;
      try {
        startFrom(resumeOffset);
      } catch (RuntimeException e) {
        return failed(e, false);
      }
      LOG.info("Replication stream running again after {} ms", restarts.failingForMs());
    }
    List<SourceRecord> records;
    try {
      records = task.poll();
    } catch (RuntimeException e) {
      return failed(e, true);
    }
    if (records == null || records.isEmpty()) {
      if (System.currentTimeMillis() - startedAt > healthyAfterMs) {
        restarts.reset(); // polling without a fault for a while is a success, even on a quiet database
      }
      return List.of();
    }
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

  /**
   * A failure of the running task ({@code announce}) or of a restart: a transient one stops the
   * task and schedules a restart; anything else, or a fault lasting past the retry timeout, is
   * thrown.
   */
  private List<ReplicationEvent> failed(RuntimeException e, boolean announce) {
    if (!Failures.isTransient(e) && !StartupSchemaRead.failed(e)) {
      throw e;
    }
    long wait = restarts.next();
    if (wait < 0) {
      throw new ConnectException("the replication stream kept failing for " + restarts.failingForMs() / 1000
          + " s (retry.timeout.ms = " + restarts.giveUpAfterMs() + "); last failure: " + Failures.rootMessage(e), e);
    }
    LOG.warn("Replication stream failed ({}); starting it again in {} ms from the last complete transaction",
        Failures.rootMessage(e), wait, e);
    synchronized (this) {
      running = false;
      stopQuietly(task);
    }
    restartAt = System.currentTimeMillis() + wait;
    return announce ? List.of(new ReplicationEvent.Interrupted(Failures.rootMessage(e))) : List.of();
  }

  private static void stopQuietly(RelationTypedPostgresTask t) {
    try {
      t.stop();
    } catch (RuntimeException stopFailure) {
      LOG.debug("Stopping the failed Debezium task failed too", stopFailure);
    }
  }

  /** Synchronized with start and stop: Connect's committer thread must not reach a task being replaced. */
  @Override
  public synchronized void acknowledgeStoredPositions() throws InterruptedException {
    if (running) {
      task.commit();
    }
  }

  @Override
  public synchronized void close() {
    closed = true;
    running = false;
    if (task != null) {
      task.stop();
    }
  }
}
