/**
 * The backfill merge rule (ADR 0003, ADR 0007): rows copied from a snapshot never overwrite a
 * newer value nor bring back a deleted or truncated row ({@link
 * io.pg2lite.replica.merge.BackfillMerge}), and a key change older than a copy that already
 * wrote its new key merges into the copied row ({@link io.pg2lite.replica.merge.KeyChange}).
 */
package io.pg2lite.replica.merge;
