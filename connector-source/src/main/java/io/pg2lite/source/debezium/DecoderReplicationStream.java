package io.pg2lite.source.debezium;

import io.debezium.config.Configuration;
import io.debezium.connector.postgresql.PostgresConnectorConfig;
import io.debezium.connector.postgresql.connection.Lsn;
import io.pg2lite.connect.failure.Backoff;
import io.pg2lite.connect.failure.Failures;
import io.pg2lite.source.config.SourceConfig;
import io.pg2lite.source.replication.ReplicationEvent;
import io.pg2lite.source.replication.ReplicationStream;
import io.pg2lite.source.transaction.SourcePosition;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.locks.LockSupport;
import java.util.function.Supplier;
import org.apache.kafka.connect.errors.ConnectException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * {@link ReplicationStream} over Debezium's lower layer: its replication connection and pgoutput
 * decoder, read on the polling thread, mapped by {@link DecodedMessageMapper} (ADR 0015). No
 * Debezium task, queue, envelope or offset map per record.
 *
 * <p>Acknowledgement: {@link #acknowledgeStoredPositions} (Connect's committer thread) only flags
 * that a confirmation is due; the next {@link #poll} reads the stored offsets and confirms their
 * {@code lsn_commit} to the slot. Connect writes those offsets only after Kafka stored the
 * records, so an LSN is never confirmed before its records are durable. The confirmation is done
 * on the polling thread because pgjdbc's replication stream is not thread-safe, at most once a
 * second.
 *
 * <p>Heartbeats: every {@code heartbeat.interval.ms} the stream writes a transactional logical
 * message ({@code pg2lite.heartbeat}); it comes back as a transaction of its own, so the stored
 * position, and with it the slot, moves even when no published table changes. Keepalives and
 * status updates are pgjdbc's, sent while the stream is read.
 *
 * <p>Transient faults ({@link Failures}, and a slot still held by the connection of a task that
 * is stopping) close the session, announce {@link ReplicationEvent.Interrupted}, and open a new
 * one after a bounded backoff, resuming after the last complete transaction handed out (the
 * resume supplier), never from Connect's stored offsets, which may lag behind records already
 * handed to Connect. A fault that outlasts the retry timeout, or any other failure, is thrown.
 */
public final class DecoderReplicationStream implements ReplicationStream {
  private static final Logger LOG = LoggerFactory.getLogger(DecoderReplicationStream.class);
  /** SQLSTATE object_in_use: "replication slot ... is active for PID ...". */
  private static final String SLOT_IN_USE = "55006";
  /**
   * At most one read of the stored offsets per second. Each read is a round trip to Kafka's
   * offsets topic on the polling thread, and Connect asks for one after every Kafka commit: a
   * profile counted 214 such waits in five 100k-row drains (ADR 0017), and a read caught by a
   * broker outage holds the task until Connect closes its offset reader. The confirmation only
   * lets Postgres recycle WAL, so a second's delay costs nothing; the flag stays set meanwhile.
   */
  private static final long ACKNOWLEDGE_EVERY_NANOS = Duration.ofSeconds(1).toNanos();
  /** How long one poll reads before it hands what it has to the task. */
  private static final long READ_BUDGET_NANOS = Duration.ofMillis(20).toNanos();
  /** How long an empty poll waits for a first message. */
  private static final long IDLE_WAIT_NANOS = Duration.ofMillis(5).toNanos();

  private final Configuration raw;
  private final PostgresConnectorConfig debezium;
  private final SourceConfig config;
  private final int batchSize;
  private final Duration statusUpdateInterval;
  private final Supplier<Map<String, ?>> storedOffset;
  private final Supplier<Map<String, ?>> resumeOffset;
  private final Backoff restarts;
  private final long healthyAfterMs;
  private final String heartbeatSql;
  /** Replaced on a restart (polling thread); closed by {@link #close} from Connect's thread. */
  private volatile DecoderSession session;
  private volatile boolean acknowledgementDue;
  private volatile boolean closed;
  private long flushed = -1;
  /** When the stored offsets were last read for a confirmation (see {@link #ACKNOWLEDGE_EVERY_NANOS}). */
  private long lastAcknowledgement = System.nanoTime() - ACKNOWLEDGE_EVERY_NANOS;
  private long startedAt;
  private long restartAt = -1;
  private long lastHeartbeat;

  public DecoderReplicationStream(SourceConfig config, Supplier<Map<String, ?>> storedOffset,
      Supplier<Map<String, ?>> resumeOffset) {
    Map<String, String> properties = DebeziumProperties.of(config, "pg2lite_" + config.slot);
    this.raw = Configuration.from(properties);
    this.debezium = new PostgresConnectorConfig(raw);
    this.config = config;
    this.batchSize = Integer.parseInt(properties.get("max.batch.size"));
    this.statusUpdateInterval = Duration.ofMillis(Long.parseLong(properties.get("status.update.interval.ms")));
    this.storedOffset = storedOffset;
    this.resumeOffset = resumeOffset;
    this.restarts = Backoff.forRetries(config.retryBackoffMaxMs, config.retryTimeoutMs);
    this.healthyAfterMs = config.retryBackoffMaxMs;
    this.heartbeatSql = "SELECT pg_logical_emit_message(true, '" + DebeziumProperties.HEARTBEAT_MESSAGE_PREFIX + "', '')";
  }

  @Override
  public int batchSize() {
    return batchSize;
  }

  @Override
  public void start() {
    try {
      open(storedOffset.get());
    } catch (SQLException e) {
      throw new ConnectException("could not start reading slot " + config.slot + ": " + e.getMessage(), e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new ConnectException("interrupted while starting to read slot " + config.slot, e);
    }
  }

  /** Opens a session resuming after the commit that {@code position} (pg2lite's source offset) stored. */
  private void open(Map<String, ?> position) throws SQLException, InterruptedException {
    if (closed) {
      return;
    }
    session = DecoderSession.open(raw, debezium, config.slot, config.publication, statusUpdateInterval,
        commitLsnOf(position));
    if (closed) {
      closeSession(); // closed while it opened
      return;
    }
    startedAt = System.currentTimeMillis();
    lastHeartbeat = startedAt;
  }

  @Override
  public List<ReplicationEvent> poll() throws InterruptedException {
    if (session == null) {
      if (restartAt < 0) {
        return List.of(); // closed
      }
      long wait = restartAt - System.currentTimeMillis();
      if (wait > 0) {
        Thread.sleep(Math.min(wait, 500));
        return List.of();
      }
      restartAt = -1;
      try {
        open(resumeOffset.get());
      } catch (SQLException | RuntimeException e) {
        return failed(e, false);
      }
      LOG.info("Replication stream running again after {} ms", restarts.failingForMs());
    }
    List<ReplicationEvent> events = new ArrayList<>();
    try {
      acknowledgeIfDue();
      heartbeatIfDue();
      read(events);
    } catch (SQLException | RuntimeException e) {
      List<ReplicationEvent> failure = failed(e, true);
      events.addAll(failure);
      return events;
    }
    if (events.isEmpty()) {
      if (System.currentTimeMillis() - startedAt > healthyAfterMs) {
        restarts.reset(); // reading without a fault for a while is a success, even on a quiet database
      }
    } else {
      restarts.reset();
    }
    return events;
  }

  /** Reads what is buffered, up to a batch or the read budget; waits a little for a first message. */
  private void read(List<ReplicationEvent> out) throws SQLException, InterruptedException {
    DecoderSession s = session;
    long start = System.nanoTime();
    while (out.size() < batchSize) {
      boolean read = s.stream.readPending(message -> {
        ReplicationEvent e = s.mapper.map(message, s.stream.lastReceivedLsn().asLong());
        if (e != null) {
          out.add(e);
        }
      });
      long elapsed = System.nanoTime() - start;
      if (!read) {
        if (!out.isEmpty() || elapsed > IDLE_WAIT_NANOS) {
          return;
        }
        LockSupport.parkNanos(200_000);
      } else if (elapsed > READ_BUDGET_NANOS) {
        return;
      }
    }
  }

  private void acknowledgeIfDue() throws SQLException {
    long now = System.nanoTime();
    if (!acknowledgementDue || now - lastAcknowledgement < ACKNOWLEDGE_EVERY_NANOS) {
      return;
    }
    acknowledgementDue = false;
    lastAcknowledgement = now;
    Long lsn = commitLsnOf(storedOffset.get());
    if (lsn != null && lsn > flushed) {
      flushed = lsn;
      session.stream.flushLsn(Lsn.valueOf(flushed));
    }
  }

  /** The commit LSN the upstream part of pg2lite's offsets resumes after, or null when there is none. */
  private static Long commitLsnOf(Map<String, ?> sourceOffset) {
    Map<String, Object> upstream = sourceOffset == null ? null : SourcePosition.upstreamOf(sourceOffset);
    Object lsn = upstream == null ? null : upstream.get("lsn_commit");
    return lsn == null ? null : ((Number) lsn).longValue();
  }

  private void heartbeatIfDue() throws SQLException {
    long interval = config.heartbeatIntervalMs;
    long now = System.currentTimeMillis();
    if (interval > 0 && now - lastHeartbeat >= interval) {
      lastHeartbeat = now;
      session.execute(heartbeatSql);
    }
  }

  /**
   * A failure of the open session ({@code announce}) or of opening one: a transient one closes the
   * session and schedules a new one; anything else, or a fault lasting past the retry timeout, is
   * thrown.
   */
  private List<ReplicationEvent> failed(Exception e, boolean announce) {
    if (closed) {
      return List.of(); // the stream was closed under the reader: the failure is the closing
    }
    if (!Failures.isTransient(e) && !slotInUse(e)) {
      throw e instanceof RuntimeException r ? r : new ConnectException("reading slot " + config.slot + " failed: "
          + Failures.rootMessage(e), e);
    }
    long wait = restarts.next();
    if (wait < 0) {
      throw new ConnectException("the replication stream kept failing for " + restarts.failingForMs() / 1000
          + " s (retry.timeout.ms = " + restarts.giveUpAfterMs() + "); last failure: " + Failures.rootMessage(e), e);
    }
    if (restarts.routine()) {
      LOG.info("Replication stream interrupted ({}); starting it again in {} ms from the last complete transaction",
          Failures.rootMessage(e), wait);
    } else {
      LOG.warn("Replication stream failing for {} s ({}); starting it again in {} ms from the last complete "
          + "transaction", restarts.failingForMs() / 1000, Failures.rootMessage(e), wait, e);
    }
    DecoderSession broken = session;
    session = null;
    if (broken != null) {
      broken.abandon();
    }
    restartAt = System.currentTimeMillis() + wait;
    return announce ? List.of(new ReplicationEvent.Interrupted(Failures.rootMessage(e))) : List.of();
  }

  /** The slot is still held by the walsender of a connection that is going away (a task stopping). */
  private static boolean slotInUse(Throwable e) {
    for (Throwable t = e; t != null; t = t.getCause() == t ? null : t.getCause()) {
      if (t instanceof SQLException sql && SLOT_IN_USE.equals(sql.getSQLState())) {
        return true;
      }
    }
    return false;
  }

  @Override
  public void acknowledgeStoredPositions() {
    acknowledgementDue = true;
  }

  @Override
  public void close() {
    closed = true;
    restartAt = -1;
    closeSession();
  }

  private void closeSession() {
    DecoderSession s = session;
    session = null;
    if (s != null) {
      s.close();
    }
  }
}
