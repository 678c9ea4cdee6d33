package io.pg2lite.source.replication;

import java.sql.SQLException;
import java.util.List;

/**
 * One connection to the slot, from {@link Opener#open} until it fails or is closed. A session is
 * never repaired: after a fault {@link HealingReplicationStream} abandons it and opens a new one,
 * so nothing of a half-broken connection leaks into the next attempt.
 *
 * <p>Called from one thread (the source's polling thread), except {@link #close}, which Connect's
 * thread may call while a read is under way.
 */
public interface ReplicationSession extends AutoCloseable {
  /** Opens a session; the seam between the healing stream and the library that speaks pgoutput. */
  @FunctionalInterface
  interface Opener {
    /**
     * Opens the slot's stream after the commit that ended at {@code resumeAfterLsn}, or at the
     * slot's confirmed position when null. Postgres sends no transaction whose commit record
     * starts before the position, so the transaction ending there is not sent again.
     */
    ReplicationSession open(Long resumeAfterLsn) throws SQLException, InterruptedException;
  }

  /**
   * Adds what the connection has buffered to {@code out}, up to {@code max} events or a short read
   * budget, waiting a few milliseconds for a first event; whole transactions arrive in commit order.
   */
  void read(List<ReplicationEvent> out, int max) throws SQLException, InterruptedException;

  /** Tells Postgres the slot may let go of the WAL before {@code lsn} (its records are durable in Kafka). */
  void confirm(long lsn) throws SQLException;

  /**
   * Writes a heartbeat into the WAL: a transactional logical message that comes back through the
   * slot as a transaction of its own, so the position moves even when no published table changes.
   */
  void heartbeat() throws SQLException;

  /** Closes a session whose connection failed, without the goodbyes a dead socket cannot carry. */
  void abandon();

  @Override
  void close();
}
