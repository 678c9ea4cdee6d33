package io.pg2lite.source.debezium;

import io.debezium.connector.postgresql.PostgresSchema;
import io.debezium.connector.postgresql.PostgresStreamingChangeEventSource.PgConnectionSupplier;
import io.debezium.connector.postgresql.connection.LogicalDecodingMessage;
import io.debezium.connector.postgresql.connection.ReplicationMessage;
import io.debezium.relational.Table;
import io.debezium.relational.TableId;
import io.debezium.relational.TableSchema;
import io.debezium.relational.ValueConverter;
import io.debezium.relational.ValueConverterProvider;
import io.pg2lite.protocol.schema.QualifiedName;
import io.pg2lite.protocol.value.Row;
import io.pg2lite.protocol.value.Value;
import io.pg2lite.protocol.watermark.Lsn;
import io.pg2lite.source.replication.ReplicationEvent;
import io.pg2lite.source.replication.ReplicationEvent.RowOp;
import io.pg2lite.source.value.ConnectValueMapper;
import io.pg2lite.source.value.PgOutputText;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.kafka.connect.data.Schema;
import org.apache.kafka.connect.errors.ConnectException;

/**
 * Turns the messages of Debezium's pgoutput decoder ({@link ReplicationMessage}) into
 * {@link ReplicationEvent}s, with no Connect envelope in between (ADR 0015).
 *
 * <p>Values take the converters they took inside Debezium's task: each column is resolved to a
 * Java object by the decoder ({@code Column.getValue}), converted by the converter Debezium built
 * for that column from the Relation message ({@link TableConverters}), and mapped to a protocol
 * value by {@link ConnectValueMapper}, column by column. The envelope (source block, offsets, the
 * change-event queue) and the per-row {@code Struct} are gone; the values are byte for byte what
 * they were (DecoderEventsIT holds them to what Debezium's task handed out).
 *
 * <p>Unchanged TOASTed columns are absent from the row. As in Debezium's task, an update whose
 * old row image holds the column's value (REPLICA IDENTITY FULL) takes it from there instead.
 *
 * <p>A primary-key change is one UPDATE whose old image is the old key: pgoutput sends it that
 * way, and this mapper keeps it that way (Debezium's task split it into a delete and a create).
 *
 * <p>The commit LSN of a transaction is the stream's last received LSN at its COMMIT message:
 * the end of the commit record, which is what Debezium stored as {@code lsn_commit}. The position
 * a TxEnd carries uses Debezium's offset keys, so positions stored by either reader resume the
 * other.
 */
final class DecodedMessageMapper {
  /** The schema of pg2lite's catalog objects in Postgres (install.sql): never replicated. */
  private static final String CATALOG_SCHEMA = "pg2lite";

  private final PostgresSchema schema;
  private final PgConnectionSupplier connection;
  private final ValueConverterProvider valueConverters;
  private final CaseDistinctRelations relationNames;
  private final ConnectValueMapper mapper = new ConnectValueMapper();
  private final Map<String, TableId> tableIds = new HashMap<>();
  private final Map<TableId, TableConverters> converters = new HashMap<>();
  private long txId = -1;
  private Instant commitTime;
  private long events;

  /**
   * @param schema the schema the decoder fills from Relation messages
   * @param connection the JDBC connection the decoder may need to resolve a value
   * @param valueConverters the converters {@code schema} was built with
   * @param relationNames the decoder's wrapper that tells columns' upstream names
   */
  DecodedMessageMapper(PostgresSchema schema, PgConnectionSupplier connection, ValueConverterProvider valueConverters,
      CaseDistinctRelations relationNames) {
    this.schema = schema;
    this.connection = connection;
    this.valueConverters = valueConverters;
    this.relationNames = relationNames;
  }

  /** The transaction between the last BEGIN and its COMMIT; -1 outside one. */
  long transactionId() {
    return txId;
  }

  /**
   * Maps one decoded message; null for one that carries nothing pg2lite needs (origin, no-op,
   * a change of pg2lite's own catalog).
   *
   * @param lastReceived the stream's last received LSN when the message was decoded
   */
  ReplicationEvent map(ReplicationMessage m, long lastReceived) {
    switch (m.getOperation()) {
      case BEGIN:
        txId = m.getTransactionId().orElseThrow(() -> new ConnectException("pgoutput BEGIN without a transaction id"));
        commitTime = m.getCommitTime();
        events = 0;
        return new ReplicationEvent.TxBegin(txId, commitTime);
      case COMMIT:
        long id = m.getTransactionId().orElse(txId);
        ReplicationEvent end = new ReplicationEvent.TxEnd(id, new Lsn(lastReceived), events,
            position(lastReceived, id, commitTime));
        txId = -1;
        return end;
      case MESSAGE:
        LogicalDecodingMessage message = (LogicalDecodingMessage) m;
        Long messageTx = message.isTransactional() && message.getTransactionId().isPresent()
            ? message.getTransactionId().getAsLong() : null;
        events++;
        return new ReplicationEvent.Message(messageTx, message.getPrefix(), message.getContent());
      case INSERT:
      case UPDATE:
      case DELETE:
      case TRUNCATE:
        return change(m);
      default:
        return null; // ORIGIN, NOOP
    }
  }

  /**
   * A position after a commit, in Debezium's offset keys: {@code lsn_commit} is what a restart
   * resumes after (and what {@link DebeziumPositions} reads); {@code lsn} and {@code lsn_proc},
   * equal to it, let Debezium's own task resume from it too.
   */
  static Map<String, Object> position(long commitLsn, long txId, Instant commitTime) {
    Map<String, Object> p = new HashMap<>();
    p.put("lsn", commitLsn);
    p.put("lsn_proc", commitLsn);
    p.put("lsn_commit", commitLsn);
    p.put("txId", txId);
    p.put("messageType", "COMMIT");
    if (commitTime != null) {
      p.put("ts_usec", ChronoUnit.MICROS.between(Instant.EPOCH, commitTime));
    }
    return p;
  }

  private ReplicationEvent change(ReplicationMessage m) {
    TableId id = tableId(m.getTable());
    if (CATALOG_SCHEMA.equals(id.schema())) {
      // pg2lite's own tables (pg2lite.schema_history is written inside every DDL's transaction)
      // are never replicated, even when a FOR ALL TABLES publication carries them.
      return null;
    }
    QualifiedName table = new QualifiedName(id.schema(), id.table());
    long tx = m.getTransactionId().isPresent() ? m.getTransactionId().getAsLong() : txId;
    events++;
    if (m.getOperation() == ReplicationMessage.Operation.TRUNCATE) {
      return new ReplicationEvent.Truncate(tx, table);
    }
    TableConverters converters = converters(id);
    List<String> key = converters.source.keySchema() == null ? List.of()
        : converters.source.keySchema().fields().stream()
            .map(f -> relationNames.upstreamName(id.schema(), id.table(), f.name())).toList();
    switch (m.getOperation()) {
      case INSERT:
        return new ReplicationEvent.RowChange(tx, RowOp.INSERT, table, key, null,
            row(converters, m.getNewTupleList(), Map.of(), null));
      case UPDATE: {
        Map<String, Object> old = new HashMap<>();
        Row before = oldRow(converters, m.getOldTupleList(), old);
        return new ReplicationEvent.RowChange(tx, RowOp.UPDATE, table, key, before,
            row(converters, m.getNewTupleList(), old, null));
      }
      case DELETE:
        return new ReplicationEvent.RowChange(tx, RowOp.DELETE, table, key,
            oldRow(converters, m.getOldTupleList(), new HashMap<>()), null);
      default:
        throw new ConnectException("unexpected pgoutput operation " + m.getOperation() + " on " + id);
    }
  }

  /** The old row image, or null when pgoutput sent none; fills {@code oldValues} for TOAST look-ups. */
  private Row oldRow(TableConverters table, List<ReplicationMessage.Column> tuple, Map<String, Object> oldValues) {
    if (tuple == null || tuple.isEmpty()) {
      return null;
    }
    return row(table, tuple, Map.of(), oldValues);
  }

  /**
   * One row image, in the order of the table's value schema: every column the tuple carries,
   * converted by its column's converter and mapped ({@link ConnectValueMapper}); a column of the
   * schema the tuple does not carry is null. An unchanged TOASTed column takes its value from
   * {@code oldValues} when it has a non-null one there, and is left out of the row otherwise.
   *
   * @param seen receives each column's resolved value (null: not wanted)
   */
  private Row row(TableConverters table, List<ReplicationMessage.Column> tuple, Map<String, Object> oldValues,
      Map<String, Object> seen) {
    int n = table.names.length;
    Value[] values = new Value[n];
    boolean[] absent = new boolean[n];
    for (ReplicationMessage.Column c : tuple) {
      String name = c.getName();
      int i = table.indexOf(name);
      if (i < 0) {
        throw new ConnectException("pgoutput sent column \"" + name + "\" of " + table.source.id()
            + ", which its Relation message did not describe");
      }
      Object raw;
      if (c.isToastedColumn()) {
        raw = oldValues.get(name);
        if (raw == null) {
          absent[i] = true;
          continue;
        }
      } else {
        TextReading reading = table.reading(i, c.getType());
        String text = reading == TextReading.DEBEZIUM ? null : PgOutputText.of(c);
        if (text != null) {
          values[i] = fromText(table, name, reading, text);
          continue;
        }
        raw = c.getValue(connection, true);
        if (seen != null) {
          seen.put(name, raw);
        }
      }
      ValueConverter converter = table.converters[i];
      Object converted = converter == null ? null : converter.convert(raw);
      if (ConnectValueMapper.isUnchangedToast(converted)) {
        absent[i] = true;
      } else {
        values[i] = mapper.value(name, table.schemas[i], converted);
      }
    }
    Row.Builder row = Row.builder();
    for (int i = 0; i < n; i++) {
      if (!absent[i]) {
        row.put(table.names[i], values[i] == null ? Value.NULL : values[i]);
      }
    }
    return row.build();
  }

  /**
   * A value read from the text Postgres sent ({@link TextReading}), without Debezium's reading.
   * NULL never gets here: {@link PgOutputText} gives no text for it, nor when this Debezium build
   * hides the text, and such values take Debezium's path. A value of a type read as text is taken
   * whole from the new tuple: an unchanged TOASTed one took the old-image look-up before this.
   */
  private static Value fromText(TableConverters table, String column, TextReading reading, String text) {
    try {
      return reading.read(text);
    } catch (IllegalArgumentException e) {
      throw new ConnectException("column \"" + column + "\" of " + table.source.id() + ": " + e.getMessage(), e);
    }
  }

  /**
   * The converters of a table as its last Relation message described it: rebuilt when Debezium
   * has replaced the table's schema (it does on every Relation message), else reused.
   */
  private TableConverters converters(TableId id) {
    TableSchema current = schema.schemaFor(id);
    Table described = schema.tableFor(id);
    if (described == null || current == null) {
      throw new ConnectException("pgoutput sent a change of " + id + " before describing the table (no Relation message)");
    }
    TableConverters cached = converters.get(id);
    if (cached == null || cached.source != current) {
      cached = new TableConverters(described, current, valueConverters,
          name -> relationNames.upstreamName(id.schema(), id.table(), name));
      converters.put(id, cached);
    }
    return cached;
  }

  /**
   * The table a message names: pgoutput's messages name it schema-qualified and quoted. Parsed
   * once per name: the parse showed in the source's profile, and names repeat on every row.
   */
  private TableId tableId(String name) {
    return tableIds.computeIfAbsent(name, DecodedMessageMapper::parseTableId);
  }

  private static TableId parseTableId(String name) {
    TableId id = TableId.parse(name, false);
    if (id == null) {
      throw new ConnectException("pgoutput named an unreadable table: " + name);
    }
    return id.schema() == null ? new TableId(id.catalog(), "public", id.table()) : id;
  }
}
