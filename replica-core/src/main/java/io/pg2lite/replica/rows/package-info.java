/**
 * The live stream's row writes ({@link io.pg2lite.replica.rows.RowWriter}): inserts as
 * batched upserts, updates of the columns present, deletes and truncates, each stamped with the
 * transaction's watermark and told to the change log of rows.
 */
package io.pg2lite.replica.rows;
