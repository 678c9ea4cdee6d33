/**
 * Schema changes on the replica ({@link io.pg2lite.replica.schema.ReplicaSchema}) and the
 * in-memory view of its tables ({@link io.pg2lite.replica.schema.LiteTable}, immutable): table
 * and column DDL, the row-key index the upserts rely on, the metadata rows describing both.
 */
package io.pg2lite.replica.schema;
