/**
 * A replica across lineages (docs/sink-connector.md, "A new lineage"): when the change log
 * declares a new lineage (a {@code begin} with {@code lineage}), the replica of the new lineage is
 * built in a file beside the published one while readers keep reading the old, and swapped in by
 * one rename once every table is copied. {@link io.pg2lite.replica.lineage.ReplicaLineages} is the
 * entry point; it decides which file each record goes to.
 *
 * <p>Like the replica core, this package uses no Kafka or Connect type and no {@code java.sql}:
 * records come in as {@link io.pg2lite.replica.lineage.ChangeLogRecord}s and seeks go out through
 * {@link io.pg2lite.replica.lineage.ReplicaLineages.Seeker}, so a follower outside Connect can share
 * it with the sink task.
 */
package io.pg2lite.replica.lineage;
