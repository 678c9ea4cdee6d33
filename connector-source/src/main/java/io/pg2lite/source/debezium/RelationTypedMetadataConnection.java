package io.pg2lite.source.debezium;

import io.debezium.connector.postgresql.PostgresConnectorConfig;
import io.debezium.connector.postgresql.TypeRegistry;
import io.debezium.connector.postgresql.connection.PostgresConnection;
import io.debezium.relational.Column;
import io.debezium.relational.TableId;
import io.debezium.relational.Tables;
import java.sql.DatabaseMetaData;
import java.sql.SQLException;
import java.util.ArrayList;
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
 * {@code SET NOT NULL}. The decoder would log, per column of each Relation message, that the
 * column's optionality "could not be determined"; {@link RelationDecoderConfig} tells it that this
 * is on purpose (issue 30: a healthy pipeline logs no warning).
 *
 * <p>Key look-ups still read the current catalog (the decoder keeps only key columns the Relation
 * message has): the primary key, else the columns of the table's unique indexes, which is what
 * the decoder itself falls back to, with a warning, when a table has no primary key. A table
 * with neither is answered with {@link #NO_KEY}, a name no column can have, which the decoder
 * drops (it keeps only key names the Relation message has), so the table has no key, as before,
 * and no warning is logged for a table that is valid as it is (REPLICA IDENTITY FULL).
 */
final class RelationTypedMetadataConnection extends PostgresConnection {
  static final String USAGE = "pg2lite relation metadata";

  RelationTypedMetadataConnection(PostgresConnectorConfig config, TypeRegistry types) {
    super(config, types, USAGE);
  }

  /**
   * A column name no Postgres column can have: longer than the 63 bytes of an identifier
   * (NAMEDATALEN - 1). The decoder removes key names its Relation message lacks.
   */
  static final String NO_KEY = "pg2lite: no primary key and no unique index on this table; "
      + "this name is longer than any Postgres identifier can be";

  /** The primary key; else the unique indexes' columns (the decoder's fallback); else {@link #NO_KEY}. */
  @Override
  public List<String> readPrimaryKeyNames(DatabaseMetaData metadata, TableId id) throws SQLException {
    List<String> key = super.readPrimaryKeyNames(metadata, id);
    if (key == null || key.isEmpty()) {
      key = readTableUniqueIndices(metadata, id);
    }
    // Mutable: the decoder removes the names its Relation message does not have.
    return key == null || key.isEmpty() ? new ArrayList<>(List.of(NO_KEY)) : new ArrayList<>(key);
  }

  /** No columns: the decoder types every column from the Relation message itself. */
  @Override
  public List<Column> getTableColumnsForDecoder(TableId tableId, Tables.ColumnNameFilter columnFilter) {
    return List.of();
  }
}
