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
import io.pg2lite.protocol.value.TextForm;
import io.pg2lite.source.config.ConfigProblemException;
import io.pg2lite.source.config.SourceConfig;
import io.pg2lite.source.postgres.PostgresConnections;
import io.pg2lite.source.replication.ReplicationEvent;
import io.pg2lite.source.replication.ReplicationSession;
import io.pg2lite.source.value.PgOutputText;
import java.sql.SQLException;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.locks.LockSupport;
import org.postgresql.core.BaseConnection;

/**
 * The {@link ReplicationSession} of Debezium's lower layer (ADR 0015): its replication connection
 * and pgoutput decoder, read on the polling thread, mapped by {@link DecodedMessageMapper}. No
 * Debezium task, queue, envelope or offset map per record.
 *
 * <p>One session holds the JDBC connection values are
 * resolved with, the schema the pgoutput decoder fills from Relation messages, the replication
 * connection and its stream. A restart after a fault opens a new session; nothing of an old one
 * is reused, so a half-broken connection cannot leak into the next attempt.
 *
 * <p>Set up as Debezium's own task sets it up, minus what pg2lite does not use: no start-up read
 * of every table from the catalog (tables are described by the Relation messages, which pgoutput
 * sends before a table's first change on every connection), no snapshot, no slot or publication
 * creation (the source's start-up made both). The metadata connection the decoder owns is
 * {@link RelationTypedMetadataConnection} (ADR 0006), and the decoder reads
 * {@link RelationDecoderConfig}; schemas are named by {@link QuietSchemaNames}.
 *
 * <p>{@link PostgresTaskContext} and {@link PostgresSchema} have protected constructors; they are
 * reached by anonymous subclasses that add nothing (ADR 0015).
 */
public final class DecoderSession implements ReplicationSession {
  /** SQLSTATE object_in_use: "replication slot ... is active for PID ...". */
  private static final String SLOT_IN_USE = "55006";
  /** How long one read takes what arrives before it hands it over. */
  private static final long READ_BUDGET_NANOS = Duration.ofMillis(20).toNanos();
  /** An empty read that took less than this did not wait for the socket (see {@link #read}). */
  private static final long DID_NOT_WAIT_NANOS = 100_000;
  /** How long a read waits for a first message. */
  private static final long IDLE_WAIT_NANOS = Duration.ofMillis(5).toNanos();
  private static final String HEARTBEAT_SQL = "SELECT pg_logical_emit_message(true, '"
      + DebeziumProperties.HEARTBEAT_MESSAGE_PREFIX + "', '')";

  private final PostgresConnection values;
  private final PostgresConnection metadata;
  private final ReplicationConnection replication;
  private final ReplicationStream stream;
  private final DecodedMessageMapper mapper;
  private final RelationMessages relations;

  private DecoderSession(PostgresConnection values, PostgresConnection metadata, ReplicationConnection replication,
      ReplicationStream stream, DecodedMessageMapper mapper, RelationMessages relations) {
    this.values = values;
    this.metadata = metadata;
    this.replication = replication;
    this.stream = stream;
    this.mapper = mapper;
    this.relations = relations;
  }

  /**
   * Opens sessions of the source's slot, with the source's fixed Debezium settings
   * ({@link DebeziumProperties}) and the connection properties (TLS) of {@code postgres}. A TLS
   * failure comes out as the permanent problem {@link PostgresConnections#explained} makes of it.
   */
  public static ReplicationSession.Opener opener(SourceConfig config, PostgresConnections postgres) {
    Map<String, String> properties = properties(config, postgres.driverProperties());
    Configuration raw = Configuration.from(properties);
    PostgresConnectorConfig debezium = new PostgresConnectorConfig(raw);
    Duration statusUpdates = Duration.ofMillis(Long.parseLong(properties.get("status.update.interval.ms")));
    return resumeAfter -> {
      try {
        return open(raw, debezium, config.slot, config.publication, statusUpdates, resumeAfter);
      } catch (SQLException | RuntimeException e) {
        ConfigProblemException tls = postgres.explained(e);
        if (tls != null) {
          throw tls;
        }
        throw e;
      }
    };
  }

  /** The most events one read hands out ({@code max.batch.size} of the fixed settings). */
  public static int batchSize(SourceConfig config) {
    return Integer.parseInt(properties(config, Map.of()).get("max.batch.size"));
  }

  private static Map<String, String> properties(SourceConfig config, Map<String, String> driverProperties) {
    return DebeziumProperties.of(config, driverProperties, "pg2lite_" + config.slot);
  }

  /**
   * Whether a fault is the slot still held by the walsender of a connection that is going away (a
   * task stopping, a session just abandoned): transient, it lets go within seconds.
   */
  public static boolean slotInUse(Throwable e) {
    for (Throwable t = e; t != null; t = t.getCause() == t ? null : t.getCause()) {
      if (t instanceof SQLException sql && SLOT_IN_USE.equals(sql.getSQLState())) {
        return true;
      }
    }
    return false;
  }

  /** See {@link ReplicationSession.Opener#open}. */
  private static DecoderSession open(Configuration raw, PostgresConnectorConfig config, String slot, String publication,
      Duration statusUpdateInterval, Long resumeLsn) throws SQLException, InterruptedException {
    PgOutputText.requireAvailable();
    TypeRegistry types = PostgresConnection.createTypeRegistry(config.getJdbcConfig());
    PostgresConnection values = new PostgresConnection(config, types, "pg2lite values");
    ReplicationConnection replication = null;
    CaseDistinctRelations relationNames;
    try {
      PostgresTaskContext context = new PostgresTaskContext(raw, config) {};
      PostgresValueConverter converters = PostgresValueConverter.of(config, values.getDatabaseCharset(), types);
      PostgresSchema schema = new PostgresSchema(context, values.getDefaultValueConverter(),
          new QuietSchemaNames(raw.asProperties()), converters,
          new CustomConverterRegistry(List.of(new ArraysReadAsText()))) {};
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
        relationNames = CaseDistinctRelations.install(replication);
      } catch (RuntimeException e) {
        metadata.close();
        throw e;
      }
      applyPrintingSettings((JdbcConnection) replication);
      // No search for a resume point inside a transaction: pg2lite resumes only after commits.
      ReplicationStream stream = resumeLsn == null ? replication.startStreaming(new WalPositionLocator())
          : replication.startStreaming(Lsn.valueOf(resumeLsn), new WalPositionLocator());
      DecodedMessageMapper mapper = new DecodedMessageMapper(schema,
          () -> values.connection().unwrap(BaseConnection.class), converters, relationNames);
      return new DecoderSession(values, metadata, replication, stream, mapper, relationNames.relations());
    } catch (SQLException | InterruptedException | RuntimeException e) {
      closeQuietly(replication);
      values.close();
      throw e;
    }
  }

  /**
   * Makes the walsender print values as a backfill copy's session does
   * ({@link TextForm#PRINTING_SETTINGS}): pgoutput sends each value as its type's output function
   * prints it in the walsender's session, and the live stream reads that text with the mapping a
   * copy uses. Without them a tstzrange would print in the worker JVM's zone (pgjdbc's TimeZone)
   * and an interval in the server's IntervalStyle. A logical walsender runs plain SQL.
   */
  private static void applyPrintingSettings(JdbcConnection replication) throws SQLException {
    java.sql.Connection c = replication.connection();
    try (java.sql.Statement s = c.createStatement()) {
      for (String setting : TextForm.PRINTING_SETTINGS) {
        s.execute("SET " + setting);
      }
    }
    if (!c.getAutoCommit()) {
      c.commit();
    }
  }

  /**
   * Reads what the walsender has sent, up to {@code max} events.
   *
   * <p>When nothing is buffered, a read waits for the socket up to 1 ms: pgjdbc's replication
   * protocol checks for a pending message with a 1 ms blocking read (its "minimum stream available
   * check delay" is 0 on a replication connection). So an empty read is a short wait, not a
   * spin, and the wait ends as soon as bytes arrive. Two rules follow:
   * <ul>
   *   <li>A transaction that found the stream idle (an empty read came before its first message)
   *       goes out at its end, without one more read: that read would find nothing and wait its
   *       1 ms first, which every such transaction paid before it reached Kafka (issue 26: the
   *       source's "postgres commit → read" stage was 1.2 ms above what Postgres takes). A
   *       backlog read without waiting still fills the batch: its bytes are buffered, and the
   *       grouping of a busy stream (KafkaCommitPolicy) needs full batches.
   *   <li>No sleep after an empty read that waited; one that came back at once (a driver that
   *       does not wait) parks 0.2 ms, so that the loop never spins.
   * </ul>
   */
  @Override
  public void read(List<ReplicationEvent> out, int max) throws SQLException, InterruptedException {
    long start = System.nanoTime();
    boolean foundIdle = false;
    while (out.size() < max) {
      long before = System.nanoTime();
      boolean read = stream.readPending(message -> {
        ReplicationEvent e = mapper.map(message, stream.lastReceivedLsn().asLong());
        if (e != null) {
          out.add(e);
        }
      });
      // A Relation message reaches the decoder alone (it hands out nothing for it): it goes out
      // here, after the BEGIN before it and before the change after it.
      relations.drain(out, mapper.transactionId());
      long now = System.nanoTime();
      if (!read) {
        if (!out.isEmpty() || now - start > IDLE_WAIT_NANOS) {
          return;
        }
        foundIdle = true;
        if (now - before < DID_NOT_WAIT_NANOS) {
          LockSupport.parkNanos(200_000);
        }
      } else if (now - start > READ_BUDGET_NANOS
          || foundIdle && !out.isEmpty() && out.get(out.size() - 1) instanceof ReplicationEvent.TxEnd) {
        return;
      }
    }
  }

  @Override
  public void confirm(long lsn) throws SQLException {
    stream.flushLsn(Lsn.valueOf(lsn));
  }

  /** The heartbeat's logical message, on the values connection. */
  @Override
  public void heartbeat() throws SQLException {
    values.execute(HEARTBEAT_SQL);
  }

  /**
   * Closes a session whose connection failed (dropped, or Postgres restarted). Each connection's
   * socket is aborted first: a graceful close writes a Terminate message, which fails on a dead
   * socket, and Debezium logs that failure as an ERROR with two stack traces, for what is a
   * routine reconnect (issue 30).
   */
  @Override
  public void abandon() {
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

  /**
   * Ends the stream, then closes the connections. When ending the stream fails, the walsender is
   * gone (terminated by an administrator, the server restarted) and its socket with it: the
   * replication connection is then aborted, so that Debezium's close does not try a goodbye on the
   * dead socket and log it as an ERROR ("Unexpected error while closing Postgres connection"),
   * which a task stopped right after such a fault did (QuietLogIT).
   */
  @Override
  public void close() {
    try {
      stream.close();
    } catch (Exception e) {
      abortQuietly(replication);
    }
    closeQuietly(replication);
    values.close();
  }

  private static void abortQuietly(ReplicationConnection replication) {
    try {
      if (replication instanceof JdbcConnection jdbc && jdbc.isConnected()) {
        jdbc.connection(false).abort(Runnable::run);
      }
    } catch (Exception e) {
      // the close below reports nothing more than this would
    }
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
