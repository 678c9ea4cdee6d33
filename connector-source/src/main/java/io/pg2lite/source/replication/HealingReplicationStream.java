package io.pg2lite.source.replication;

import io.pg2lite.connect.failure.Failures;
import io.pg2lite.connect.failure.Healing;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Supplier;
import org.apache.kafka.connect.errors.ConnectException;

/**
 * The {@link ReplicationStream} the source reads: sessions ({@link ReplicationSession}) opened one
 * after another, healed through one {@link Healing}.
 *
 * <p>Healing: a transient fault (as the {@link Healing} classifies it) abandons the session,
 * announces {@link ReplicationEvent.Interrupted}, and opens a new one after the backoff, resuming
 * after the last complete transaction handed out ({@code resumeLsn}), never from Connect's stored
 * offsets, which may lag behind records already handed to Connect. A session that reads without a
 * fault for a while is healthy again even on a quiet database. A permanent fault, or a transient
 * one past the retry limit, is thrown.
 *
 * <p>Acknowledgement: {@link #acknowledgeStoredPositions} (Connect's committer thread) only flags
 * that a confirmation is due; the next {@link #poll} asks for a read of the stored offsets
 * ({@code storedLsn}, read on a thread of its own: {@link StoredPositionReads}) and confirms to
 * the slot the LSN the last read found. Connect writes those offsets only after Kafka stored the
 * records, so an LSN is never confirmed before its records are durable. The confirmation runs on
 * the polling thread because pgjdbc's replication stream is not thread-safe; reads are asked for
 * at most once a second ({@link #ACKNOWLEDGE_EVERY_NANOS}), and the polling thread never waits
 * for one.
 *
 * <p>Heartbeats: every {@code heartbeatIntervalMs} the session writes one
 * ({@link ReplicationSession#heartbeat}).
 */
public final class HealingReplicationStream implements ReplicationStream {
  /**
   * At most one read of the stored offsets per second. Each read is a round trip to Kafka's
   * offsets topic, and Connect asks for one after every Kafka commit: a profile counted 214 such
   * waits in five 100k-row drains (ADR 0017). The confirmation only lets Postgres recycle WAL, so
   * a second's delay costs nothing.
   */
  private static final long ACKNOWLEDGE_EVERY_NANOS = Duration.ofSeconds(1).toNanos();
  /** How long a poll waiting for the next attempt sleeps at most before it returns to Connect. */
  private static final long WAIT_SLICE_MS = 500;

  private final ReplicationSession.Opener opener;
  private final int batchSize;
  private final long heartbeatIntervalMs;
  private final Supplier<Long> storedLsn;
  private final StoredPositionReads stored;
  private final Supplier<Long> resumeLsn;
  private final Healing healing;
  private final String slot;
  /** Replaced after a fault (polling thread); closed by {@link #close} from Connect's thread. */
  private volatile ReplicationSession session;
  private volatile boolean acknowledgementDue;
  private volatile boolean closed;
  private long confirmed = -1;
  /** When the stored offsets were last read for a confirmation (see {@link #ACKNOWLEDGE_EVERY_NANOS}). */
  private long lastAcknowledgement = System.nanoTime() - ACKNOWLEDGE_EVERY_NANOS;
  private long lastHeartbeat;

  /**
   * @param storedLsn the commit LSN in the offsets Connect has stored (null: none yet)
   * @param resumeLsn the commit LSN after the last complete transaction handed out (null: none yet)
   * @param heartbeatIntervalMs 0: no heartbeats
   */
  public HealingReplicationStream(String slot, ReplicationSession.Opener opener, int batchSize,
      long heartbeatIntervalMs, Supplier<Long> storedLsn, Supplier<Long> resumeLsn, Healing healing) {
    this(slot, opener, batchSize, heartbeatIntervalMs, storedLsn, resumeLsn, healing,
        StoredPositionReads.onOwnThread(slot, storedLsn));
  }

  /** As above, the stored offsets read by {@code stored} (tests read them at once). */
  HealingReplicationStream(String slot, ReplicationSession.Opener opener, int batchSize, long heartbeatIntervalMs,
      Supplier<Long> storedLsn, Supplier<Long> resumeLsn, Healing healing, StoredPositionReads stored) {
    this.stored = stored;
    this.slot = slot;
    this.opener = opener;
    this.batchSize = batchSize;
    this.heartbeatIntervalMs = heartbeatIntervalMs;
    this.storedLsn = storedLsn;
    this.resumeLsn = resumeLsn;
    this.healing = healing;
  }

  @Override
  public int batchSize() {
    return batchSize;
  }

  /** Opens the first session where the stored offsets left off; a failure is the caller's to heal (the start-up's). */
  @Override
  public void start() {
    try {
      open(storedLsn.get());
    } catch (SQLException e) {
      throw new ConnectException("could not start reading slot " + slot + ": " + e.getMessage(), e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new ConnectException("interrupted while starting to read slot " + slot, e);
    }
  }

  private void open(Long resumeAfter) throws SQLException, InterruptedException {
    if (closed) {
      return;
    }
    ReplicationSession opened = opener.open(resumeAfter);
    session = opened;
    if (closed) { // closed while it opened
      session = null;
      opened.close();
      return;
    }
    healing.opened();
    lastHeartbeat = System.currentTimeMillis();
  }

  @Override
  public List<ReplicationEvent> poll() throws InterruptedException {
    if (session == null) {
      if (closed || !healing.attemptDue(WAIT_SLICE_MS)) {
        return List.of();
      }
      try {
        open(resumeLsn.get());
      } catch (SQLException | RuntimeException e) {
        return failed(e, false);
      }
      if (session == null) {
        return List.of(); // closed meanwhile
      }
    }
    List<ReplicationEvent> events = new ArrayList<>();
    try {
      acknowledgeIfDue();
      heartbeatIfDue();
      session.read(events, batchSize);
    } catch (SQLException | RuntimeException e) {
      events.addAll(failed(e, true));
      return events;
    }
    if (events.isEmpty()) {
      healing.steady(); // reading without a fault for a while is a success, even on a quiet database
    } else {
      healing.succeeded();
    }
    return events;
  }

  private void acknowledgeIfDue() throws SQLException {
    long now = System.nanoTime();
    if (acknowledgementDue && now - lastAcknowledgement >= ACKNOWLEDGE_EVERY_NANOS) {
      acknowledgementDue = false;
      lastAcknowledgement = now;
      stored.request();
    }
    Long lsn = stored.latest();
    if (lsn != null && lsn > confirmed) {
      confirmed = lsn;
      session.confirm(confirmed);
    }
  }

  private void heartbeatIfDue() throws SQLException {
    long now = System.currentTimeMillis();
    if (heartbeatIntervalMs > 0 && now - lastHeartbeat >= heartbeatIntervalMs) {
      lastHeartbeat = now;
      session.heartbeat();
    }
  }

  /**
   * A failure of the open session ({@code announce}) or of opening one: a transient one abandons
   * the session and schedules a new one; anything else, or a fault lasting past the retry limit,
   * is thrown (by the {@link Healing}).
   */
  private List<ReplicationEvent> failed(Exception e, boolean announce) {
    if (closed) {
      return List.of(); // the stream was closed under the reader: the failure is the closing
    }
    RuntimeException fault = e instanceof RuntimeException r ? r
        : new ConnectException("reading slot " + slot + " failed: " + e.getMessage(), e);
    healing.failed(fault, "starting it again from the last complete transaction");
    ReplicationSession broken = session;
    session = null;
    if (broken != null) {
      broken.abandon();
    }
    return announce ? List.of(new ReplicationEvent.Interrupted(Failures.rootMessage(e)))
        : List.of();
  }

  @Override
  public void acknowledgeStoredPositions() {
    acknowledgementDue = true;
  }

  @Override
  public void close() {
    closed = true;
    stored.close();
    ReplicationSession s = session;
    session = null;
    if (s != null) {
      s.close();
    }
  }
}
