package io.pg2lite.source.debezium;

import io.debezium.config.Configuration;
import io.debezium.connector.postgresql.PostgresConnectorConfig;
import io.debezium.connector.postgresql.PostgresSchema;
import io.debezium.connector.postgresql.PostgresTaskContext;
import io.debezium.connector.postgresql.PostgresValueConverter;
import io.debezium.connector.postgresql.TypeRegistry;
import io.debezium.connector.postgresql.connection.Lsn;
import io.debezium.connector.postgresql.connection.PostgresConnection;
import io.debezium.connector.postgresql.connection.ReplicationConnection;
import io.debezium.connector.postgresql.connection.ReplicationStream;
import io.debezium.connector.postgresql.connection.WalPositionLocator;
import io.debezium.jdbc.JdbcConnection;
import io.debezium.relational.CustomConverterRegistry;
import java.sql.SQLException;
import java.time.Duration;
import java.util.List;
import org.postgresql.core.BaseConnection;

/**
 * One connection to the slot through Debezium's lower layer: the JDBC connection values are
 * resolved with, the schema the pgoutput decoder fills from Relation messages, the replication
 * connection and its stream. A restart after a fault opens a new session; nothing of an old one
 * is reused, so a half-broken connection cannot leak into the next attempt.
 *
 * <p>Set up as Debezium's own task sets it up, minus what pg2lite does not use: no start-up read
 * of every table from the catalog (tables are described by the Relation messages, which pgoutput
 * sends before a table's first change on every connection), no snapshot, no slot or publication
 * creation (the source's start-up made both). The metadata connection the decoder owns is
 * {@link RelationTypedMetadataConnection}, as in {@link RelationTypedPostgresTask} (ADR 0006), and
 * the decoder reads {@link RelationDecoderConfig}; schemas are named by {@link QuietSchemaNames}.
 *
 * <p>{@link PostgresTaskContext} and {@link PostgresSchema} have protected constructors; they are
 * reached by anonymous subclasses that add nothing (ADR 0015).
 */
final class DecoderSession implements AutoCloseable {
  private final PostgresConnection values;
  private final PostgresConnection metadata;
  private final ReplicationConnection replication;
  final ReplicationStream stream;
  final DecodedMessageMapper mapper;

  private DecoderSession(PostgresConnection values, PostgresConnection metadata, ReplicationConnection replication,
      ReplicationStream stream, DecodedMessageMapper mapper) {
    this.values = values;
    this.metadata = metadata;
    this.replication = replication;
    this.stream = stream;
    this.mapper = mapper;
  }

  /**
   * Opens the slot's stream after {@code resumeLsn} (the end of the last commit handed out
   * before), or at the slot's confirmed position when null. Postgres sends no transaction whose
   * commit record starts before the position, so the transaction ending there is not sent again.
   */
  static DecoderSession open(Configuration raw, PostgresConnectorConfig config, String slot, String publication,
      Duration statusUpdateInterval, Long resumeLsn) throws SQLException, InterruptedException {
    TypeRegistry types = PostgresConnection.createTypeRegistry(config.getJdbcConfig());
    PostgresConnection values = new PostgresConnection(config, types, "pg2lite values");
    ReplicationConnection replication = null;
    try {
      PostgresTaskContext context = new PostgresTaskContext(raw, config) {};
      PostgresSchema schema = new PostgresSchema(context, values.getDefaultValueConverter(),
          new QuietSchemaNames(raw.asProperties()),
          PostgresValueConverter.of(config, values.getDatabaseCharset(), types), new CustomConverterRegistry(List.of())) {};
      // The decoder closes its metadata connection when the replication connection closes.
      RelationTypedMetadataConnection metadata = new RelationTypedMetadataConnection(config, types);
      try {
        replication = ReplicationConnection.builder(new RelationDecoderConfig(raw))
            .withSlot(slot)
            .withPublication(publication)
            .withTableFilter(config.getTableFilters())
            .withPublicationAutocreateMode(PostgresConnectorConfig.AutoCreateMode.DISABLED)
            .withPlugin(PostgresConnectorConfig.LogicalDecoder.PGOUTPUT)
            .dropSlotOnClose(false)
            .statusUpdateInterval(statusUpdateInterval)
            .withTypeRegistry(types)
            .withSchema(schema)
            .jdbcMetadataConnection(metadata)
            .build();
      } catch (RuntimeException e) {
        metadata.close();
        throw e;
      }
      // No search for a resume point inside a transaction: pg2lite resumes only after commits.
      ReplicationStream stream = resumeLsn == null ? replication.startStreaming(new WalPositionLocator())
          : replication.startStreaming(Lsn.valueOf(resumeLsn), new WalPositionLocator());
      DecodedMessageMapper mapper = new DecodedMessageMapper(schema, () -> values.connection().unwrap(BaseConnection.class));
      return new DecoderSession(values, metadata, replication, stream, mapper);
    } catch (SQLException | InterruptedException | RuntimeException e) {
      closeQuietly(replication);
      values.close();
      throw e;
    }
  }

  /** Runs a statement on the values connection (the heartbeat's logical message). */
  void execute(String sql) throws SQLException {
    values.execute(sql);
  }

  /**
   * Closes a session whose connection failed (dropped, or Postgres restarted). Each connection's
   * socket is aborted first: a graceful close writes a Terminate message, which fails on a dead
   * socket, and Debezium logs that failure as an ERROR with two stack traces, for what is a
   * routine reconnect (issue 30).
   */
  void abandon() {
    abort(replication);
    abort(metadata);
    abort(values);
    close();
  }

  /** Drops the connection's socket without a word to the server; closing it afterwards is quiet. */
  private static void abort(Object connection) {
    if (connection instanceof JdbcConnection jdbc) {
      try {
        if (jdbc.isConnected()) { // never connection() on a closed one: it would connect again
          jdbc.connection().abort(Runnable::run);
        }
      } catch (SQLException e) {
        // aborting only closes the socket; whatever is left, close() handles
      }
    }
  }

  @Override
  public void close() {
    try {
      stream.close();
    } catch (Exception e) {
      // the connection below is closed anyway
    }
    closeQuietly(replication);
    values.close();
  }

  private static void closeQuietly(AutoCloseable c) {
    if (c == null) {
      return;
    }
    try {
      c.close();
    } catch (Exception e) {
      // closing a broken connection fails; nothing to heal
    }
  }
}
