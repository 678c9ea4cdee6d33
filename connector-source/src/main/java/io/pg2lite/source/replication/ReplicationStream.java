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
 *   <li>Errors are {@link org.apache.kafka.connect.errors.RetriableException} when a restart may
 *       cure them (connection lost, server shutting down) and other ConnectExceptions when not
 *       (authentication, missing slot, privilege).</li>
 * </ul>
 */
public interface ReplicationStream extends AutoCloseable {
  void start();

  List<ReplicationEvent> poll() throws InterruptedException;

  void acknowledgeStoredPositions() throws InterruptedException;

  @Override
  void close();
}
