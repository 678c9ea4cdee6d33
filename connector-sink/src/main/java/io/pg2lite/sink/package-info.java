/**
 * The sink connector: replays the change log into a SQLite replica file, each upstream transaction
 * atomically (several may share one SQLite transaction when the sink is behind; one is never
 * split), storing its Kafka offset and watermark inside the replica. {@code apply}
 * holds the applier's state machine; only the {@code replica} packages may touch {@code java.sql}
 * (the rest sees {@link io.pg2lite.replica.ReplicaException}).
 */
package io.pg2lite.sink;
