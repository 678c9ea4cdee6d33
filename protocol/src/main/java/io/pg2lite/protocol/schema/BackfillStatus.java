package io.pg2lite.protocol.schema;

/** Progress of a backfill: rows copied so far, rows in the snapshot, and bytes when known. */
public record BackfillStatus(long rows, long totalRows, Long totalBytes) {}
