/**
 * The SQLite replica, behind one entry point: {@link io.pg2lite.replica.Replica} (open, begin
 * an upstream transaction as a {@link io.pg2lite.replica.ReplicaTransaction}, commit or roll
 * back the SQLite transaction) and its one failure type,
 * {@link io.pg2lite.replica.ReplicaException}. The replica packages are the only ones of the
 * sink that touch {@code java.sql}, and they use no Kafka or Connect type: they are the core a
 * replica outside Connect shares with the sink.
 *
 * <p>Subpackages, each depending only on those before it (no cycles):
 * <ul>
 *   <li>{@code space}: whether SQLite failed for want of room, and how much room there is;</li>
 *   <li>{@code lite}: how names, types and values are spelled in SQLite;</li>
 *   <li>{@code file}: the file, its connection and transactions, the metadata tables and the
 *       state row (the replica's position);</li>
 *   <li>{@code schema}: schema changes and the in-memory view of the tables;</li>
 *   <li>{@code changelog}: the per-row record of what the live stream did, which the merge reads;</li>
 *   <li>{@code merge}: the backfill merge rule (copied rows, and key changes onto copied rows);</li>
 *   <li>{@code rows}: the live stream's row writes (upserts, updates, deletes, truncates);</li>
 *   <li>{@code snapshot}: copies of the replica in a store, taken beside the apply loop and
 *       restored into a missing replica;</li>
 *   <li>{@code verify}: the replica's digests of its tables at the exact position of a
 *       {@code verify} message, compared with the source's (ADR 0040), beside the apply loop.</li>
 * </ul>
 */
package io.pg2lite.replica;
