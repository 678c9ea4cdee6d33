package io.pg2lite.source.debezium;

import io.debezium.config.Configuration;
import io.debezium.connector.postgresql.PostgresConnectorConfig;
import io.debezium.relational.Tables;

/**
 * The settings of the replication connection, which hands them to its pgoutput decoder: pg2lite's
 * Debezium settings, with a column filter that no column passes.
 *
 * <p>The decoder asks the column filter two things on each Relation message: which columns to
 * read from the catalog ({@link RelationTypedMetadataConnection} reads none, ADR 0006), and whether
 * to warn that a column's optionality is unknown. Unknown is what ADR 0006 chose, so the warning
 * would say nothing an operator can act on, three lines per column of every Relation message
 * (issue 30: 62% of a worker's log). Values, keys and types do not depend on this filter: the
 * decoder reads every column the message carries, and the schema that converts values
 * ({@code PostgresSchema}) is built from the unfiltered settings. {@code DecoderEquivalenceIT}
 * and {@code QuietLogIT} would show a Debezium release that used the filter for more.
 */
final class RelationDecoderConfig extends PostgresConnectorConfig {
  RelationDecoderConfig(Configuration config) {
    super(config);
  }

  @Override
  public Tables.ColumnNameFilter getColumnFilter() {
    return (catalog, schema, table, column) -> false;
  }
}
