/**
 * The sink connector: replays the change log into a SQLite replica file, one upstream transaction
 * per SQLite transaction, storing its Kafka offset and watermark inside the replica. {@code apply}
 * holds the applier's state machine; only the {@code replica} packages may touch {@code java.sql}
 * (the rest sees {@link io.pg2lite.sink.replica.ReplicaException}).
 */
package io.pg2lite.sink;
