/**
 * The replica file: its one connection and its transactions
 * ({@link io.pg2lite.replica.file.ReplicaFile}), the cache of prepared statements, the
 * {@code _pg2lite.*} metadata tables and the state row
 * ({@link io.pg2lite.replica.file.ReplicaState}) that records the replica's position in the
 * same SQLite transaction as the data it describes.
 */
package io.pg2lite.replica.file;
