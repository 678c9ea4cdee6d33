package io.pg2lite.protocol.schema;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Upstream identity of a table, used to detect that a backfill's snapshot no longer matches the
 * table it was asked to copy: the schema and table OIDs, and the row-key columns by attnum.
 * A change of any of them cancels a running backfill.
 *
 * @param rowKey row-key column name to its attnum, in key order
 */
public record TableMetadata(long schemaOid, long relationOid, Map<String, Integer> rowKey) {
  public TableMetadata {
    rowKey = Collections.unmodifiableMap(new LinkedHashMap<>(rowKey));
  }
}
