package io.pg2lite.backfill.state;

import io.pg2lite.protocol.schema.BackfillId;
import io.pg2lite.protocol.schema.QualifiedName;
import io.pg2lite.protocol.schema.TableMetadata;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;

/**
 * What must still be copied for one table: the columns (name → backfill id) and the table's
 * metadata (oids and row key) as of the last schema change seen, against which a copy validates
 * its snapshot. Immutable: every transition builds a new request.
 *
 * @param metadata null when the source never sent metadata for the table (a copy then fails and
 *     retries until a schema change supplies it)
 */
public record BackfillRequest(QualifiedName table, TableMetadata metadata, Map<String, BackfillId> columns) {
  public BackfillRequest {
    Objects.requireNonNull(table, "table");
    columns = Collections.unmodifiableMap(new LinkedHashMap<>(columns));
  }

  public String key() {
    return table.schema() + "." + table.name();
  }

  BackfillRequest withTable(QualifiedName renamed) {
    return new BackfillRequest(renamed, metadata, columns);
  }

  BackfillRequest withMetadata(TableMetadata updated) {
    return new BackfillRequest(table, updated, columns);
  }

  BackfillRequest withColumns(Map<String, BackfillId> updated) {
    return new BackfillRequest(table, metadata, updated);
  }
}
