package io.pg2lite.source.debezium;

import io.debezium.connector.postgresql.PostgresConnectorConfig;
import io.debezium.connector.postgresql.TypeRegistry;
import io.debezium.connector.postgresql.connection.PostgresConnection;
import io.debezium.relational.Column;
import io.debezium.relational.TableId;
import io.debezium.relational.Tables;
import java.util.List;

/**
 * The JDBC connection Debezium's pgoutput decoder uses for catalog look-ups, with the one look-up
 * that is wrong for a lagging stream switched off: the table's current columns.
 *
 * <p>On each Relation message the decoder asks for the table's columns as they are <em>now</em>
 * and takes from them each column's type name (then resolves the value decoder by that name),
 * nullability and default. With no columns in the answer, it takes the type from the Relation
 * message's type OID and modifier, which describe the table as it was when the following rows
 * were written; every column is then optional and has no default.
 *
 * <p>Why that is safe for pg2lite: the change log's column specs (types, NOT NULL, defaults) come
 * from pg2lite's own DDL messages, never from Debezium's schemas; row values are read with
 * {@code Struct.getWithoutDefault}; and an optional field accepts every value a NOT NULL one
 * does. A required field, on the contrary, would reject the NULL of a row written before a later
 * {@code SET NOT NULL}. Cost: Debezium logs, per column of each Relation message, that the
 * column's optionality "could not be determined, defaulting to true".
 *
 * <p>Primary-key look-ups still read the current catalog (the decoder keeps only key columns the
 * Relation message has).
 */
final class RelationTypedMetadataConnection extends PostgresConnection {
  static final String USAGE = "pg2lite relation metadata";

  RelationTypedMetadataConnection(PostgresConnectorConfig config, TypeRegistry types) {
    super(config, types, USAGE);
  }

  /** No columns: the decoder types every column from the Relation message itself. */
  @Override
  public List<Column> getTableColumnsForDecoder(TableId tableId, Tables.ColumnNameFilter columnFilter) {
    return List.of();
  }
}
