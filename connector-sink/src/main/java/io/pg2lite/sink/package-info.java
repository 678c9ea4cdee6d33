/**
 * The sink connector: replays the change log into a SQLite replica file, one upstream transaction
 * per SQLite transaction, storing its Kafka offset and watermark inside the replica. Only the
 * {@code replica} subpackage may touch {@code java.sql}.
 */
package io.pg2lite.sink;
