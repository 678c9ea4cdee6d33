/**
 * A full replica: {@link io.pg2lite.replica.space.ReplicaFull} tells SQLite's "no room" from
 * its other failures, {@link io.pg2lite.replica.space.ReplicaSpace} measures the room the
 * replica has and needs and says so. Shared by the sink's retries and by snapshots.
 */
package io.pg2lite.replica.space;
