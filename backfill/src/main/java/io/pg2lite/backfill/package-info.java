/**
 * Backfill: copies existing rows of newly published tables and columns as low-priority backfill
 * transactions ({@code M.k} watermarks) that interleave with the live stream without delaying it.
 * The state machine and the multiplexer live here, free of Kafka Connect and Debezium types, so
 * every transition and timing rule can be tested deterministically with a fake clock.
 */
package io.pg2lite.backfill;
