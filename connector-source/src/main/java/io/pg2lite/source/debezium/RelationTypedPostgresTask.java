package io.pg2lite.source.debezium;

import io.debezium.connector.postgresql.PostgresConnectorConfig;
import io.debezium.connector.postgresql.PostgresConnectorTask;
import io.debezium.connector.postgresql.PostgresSchema;
import io.debezium.connector.postgresql.connection.PostgresConnection;
import io.debezium.connector.postgresql.connection.ReplicationConnection;
import java.sql.SQLException;

/**
 * Debezium's Postgres task with one change: its pgoutput decoder types each column by the type
 * OID of pgoutput's Relation message, never by the column's type in the current catalog.
 *
 * <p>Why: a Relation message describes a table as it was when the rows that follow it were
 * written. Debezium 3.7's decoder, on each Relation message, also reads the table's columns from
 * the catalog as it is now, and then resolves each column's value decoder by the catalog's type
 * <em>name</em> (debezium/dbz#2232). When the source lags behind a DDL (a retype, or a DROP and
 * CREATE under the same name), rows written before the DDL are parsed with the new type and the
 * task dies ({@code NumberFormatException}, {@code DateTimeParseException}) or, worse, a value is
 * silently mis-decoded (an {@code int[]} read as text).
 *
 * <p>The only change is the metadata connection handed to the replication connection (Debezium's
 * protected {@link #buildReplicationConnection} hook): a {@link RelationTypedMetadataConnection}
 * that answers the decoder's column look-up with no columns, so that the decoder falls back to
 * the Relation message for every column. Everything else, including the main JDBC connection,
 * the schema, the offsets and the streaming loop, is Debezium's own.
 *
 * <p>Invariant: this is the only subclass of a Debezium type in pg2lite, and it lives in the
 * {@code debezium} package with every other use of Debezium (ADR 0006).
 */
final class RelationTypedPostgresTask extends PostgresConnectorTask {
  @Override
  protected ReplicationConnection buildReplicationConnection(PostgresConnection jdbcConnection, PostgresSchema schema,
      PostgresConnectorConfig connectorConfig) throws SQLException {
    // The decoder closes its metadata connection when the replication connection closes; the
    // task still closes its own main connection when it stops.
    RelationTypedMetadataConnection metadata =
        new RelationTypedMetadataConnection(connectorConfig, jdbcConnection.getTypeRegistry());
    try {
      return super.buildReplicationConnection(metadata, schema, connectorConfig);
    } catch (SQLException | RuntimeException e) {
      metadata.close();
      throw e;
    }
  }
}
