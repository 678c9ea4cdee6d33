package io.pg2lite.protocol.schema;

/** Identifies what a backfill must copy for one column: for Postgres, the column's attnum. */
public record BackfillId(int attNum) {}
