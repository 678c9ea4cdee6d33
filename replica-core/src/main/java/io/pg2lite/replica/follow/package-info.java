/**
 * A replica following its change log: what the sink task and a replica follower share, so that both
 * give the same guarantees with one implementation (ADR 0032). {@link
 * io.pg2lite.replica.follow.ReplicaFollowing} takes records from whichever reader feeds it
 * (Connect's batches, a plain consumer), applies them through the lineages, retries what is
 * transient, strands a replica whose records were deleted, and tells the reader where to read; the
 * reader tells it, through {@link io.pg2lite.connect.kafka.ChangeLogView}, what the log holds.
 * Start-up (a restore when the file is missing, then the open, one writer per file) and the
 * snapshot schedule live here too.
 */
package io.pg2lite.replica.follow;
