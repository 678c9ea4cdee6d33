package io.pg2lite.source.replication;

import java.util.List;

/**
 * The upstream logical replication stream of one slot: the seam between pg2lite and the library
 * that speaks pgoutput (Debezium).
 *
 * <p>Contract:
 * <ul>
 *   <li>{@link #start} resumes after the position last stored in the source offsets, or, with
 *       none, at the slot's confirmed flush position. It creates nothing: the slot and the
 *       publication must exist.</li>
 *   <li>{@link #poll} returns the next events in stream order, never null, possibly empty after
 *       a short wait. It is called from one thread only.</li>
 *   <li>{@link #acknowledgeStoredPositions} asks the stream to confirm to Postgres the position
 *       the source offsets hold now. The offsets are written by Kafka Connect only after Kafka
 *       stored every record up to them, so an LSN is never confirmed before its records are
 *       durable. The confirmation happens asynchronously, during a later poll.</li>
 *   <li>A transient fault (connection lost, server shutting down or starting up) is healed inside
 *       the stream: {@link #poll} returns {@link ReplicationEvent.Interrupted}, then nothing
 *       while it waits and reconnects with a bounded backoff, then the events after the last
 *       complete transaction it had returned (a cut transaction again from its begin). Only a
 *       permanent fault (authentication, missing slot, privilege, a bug), or a transient one
 *       outlasting the retry timeout, is thrown, as a ConnectException.</li>
 * </ul>
 */
public interface ReplicationStream extends AutoCloseable {
  void start();

  /** The largest batch one {@link #poll} returns: a smaller one means the stream has caught up. */
  int batchSize();

  List<ReplicationEvent> poll() throws InterruptedException;

  void acknowledgeStoredPositions() throws InterruptedException;

  @Override
  void close();
}
