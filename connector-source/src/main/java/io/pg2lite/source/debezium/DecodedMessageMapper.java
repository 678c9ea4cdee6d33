package io.pg2lite.source.debezium;

import io.debezium.connector.postgresql.PostgresSchema;
import io.debezium.connector.postgresql.PostgresType;
import io.debezium.connector.postgresql.PostgresStreamingChangeEventSource.PgConnectionSupplier;
import io.debezium.connector.postgresql.connection.LogicalDecodingMessage;
import io.debezium.connector.postgresql.connection.ReplicationMessage;
import io.debezium.relational.Table;
import io.debezium.relational.TableId;
import io.debezium.relational.TableSchema;
import io.debezium.relational.ValueConverter;
import io.debezium.relational.ValueConverterProvider;
import io.pg2lite.protocol.schema.QualifiedName;
import io.pg2lite.protocol.value.ArrayLiteral;
import io.pg2lite.protocol.value.Row;
import io.pg2lite.protocol.value.Value;
import io.pg2lite.protocol.watermark.Lsn;
import io.pg2lite.source.replication.ReplicationEvent;
import io.pg2lite.source.replication.ReplicationEvent.RowOp;
import io.pg2lite.source.value.ConnectValueMapper;
import io.pg2lite.source.value.PgOutputText;
import io.pg2lite.source.value.TemporalText;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.kafka.connect.data.Field;
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
  private static final int BYTEA_OID = 17;
  private static final int DATE_OID = 1082;
  private static final int TIME_OID = 1083;
  private static final int TIMESTAMPTZ_OID = 1184;

  private final PostgresSchema schema;
  private final PgConnectionSupplier connection;
  private final ValueConverterProvider valueConverters;
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
   */
  DecodedMessageMapper(PostgresSchema schema, PgConnectionSupplier connection, ValueConverterProvider valueConverters) {
    this.schema = schema;
    this.connection = connection;
    this.valueConverters = valueConverters;
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
        : converters.source.keySchema().fields().stream().map(Field::name).toList();
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
        Value fromText = table.schemas[i].type() == Schema.Type.ARRAY ? multiDimensional(name, c) : null;
        String log = fromText == null ? textForm(c, table.schemas[i]) : null;
        if (fromText != null || log != null) {
          // read from Postgres' text, without Debezium's reading
          values[i] = fromText != null ? fromText : new Value.Text(log);
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
   * A column's value in the log's text, read from the text Postgres sent, for the values Debezium
   * reads wrongly or not at all; null for every other value, which takes Debezium's path:
   * <ul>
   *   <li>timestamptz: every common form (ADR 0015: Debezium's parse and re-format was a sixth of
   *       the source's thread), and {@code infinity}/{@code -infinity}, which Debezium's parse
   *       refuses (it stopped the source);</li>
   *   <li>date: {@code infinity}/{@code -infinity}, which Debezium turns into the dates
   *       5877611-06-21 and -5877611-06-22, silently wrong (issue 32);</li>
   *   <li>time: {@code 24:00:00}, a valid Postgres time java.time cannot hold (it stopped the
   *       source);</li>
   *   <li>types Debezium carries as bytes other than bytea (bit strings, multiranges, text search,
   *       {@code pg_lsn}, composite and extension types: the bytes were Postgres' text, or a bit
   *       string without its length) and geometric types (structs pg2lite cannot map): Postgres'
   *       text, exactly as a backfill copy reads them.</li>
   * </ul>
   * The log spells infinity as Postgres does, as for timestamp and as a backfill copy reads it
   * (docs/type-mapping.md). Null too when this Debezium build hides the text ({@link PgOutputText})
   * or the value is NULL. A value of a type read as text here is taken whole from the new tuple:
   * an unchanged TOASTed one takes the old-image look-up before this is asked.
   */
  private static String textForm(ReplicationMessage.Column c, Schema schema) {
    int oid = c.getType().getOid();
    boolean postgresText = isGeometric(oid) || (schema.type() == Schema.Type.BYTES && oid != BYTEA_OID);
    if (!postgresText && oid != TIMESTAMPTZ_OID && oid != DATE_OID && oid != TIME_OID) {
      return null;
    }
    String text = PgOutputText.of(c);
    if (text == null || postgresText) {
      return text;
    }
    switch (oid) {
      case TIMESTAMPTZ_OID:
        return TemporalText.isInfinity(text) ? text : TemporalText.timestampTzFromPostgres(text);
      case DATE_OID:
        return TemporalText.isInfinity(text) ? text : null;
      default:
        return TemporalText.END_OF_DAY.equals(text) ? text : null;
    }
  }

  /**
   * point, lseg, path, box, polygon, line, circle: Debezium hands them over as structs. A switch,
   * not a set of boxed OIDs: this runs for every value of every row.
   */
  private static boolean isGeometric(int oid) {
    switch (oid) {
      case 600, 601, 602, 603, 604, 628, 718:
        return true;
      default:
        return false;
    }
  }

  /**
   * An array of two or more dimensions, as nested arrays read from Postgres' text
   * ({@link ArrayLiteral}, the reading constant array defaults use), as a backfill copy reads it
   * ({@code array_to_json}); Debezium hands each inner array over as a null (issue 32: a
   * {@code '{{1,2},{3,4}}'} arrived as {@code [null,null]}). Null for a one-dimensional array
   * or a NULL, which take Debezium's path, unchanged.
   *
   * @throws ConnectException for an element type whose text is not its log form (dates, bytea,
   *     json, ...): stopping, naming the column, instead of writing another value
   */
  private static Value multiDimensional(String column, ReplicationMessage.Column c) {
    String text = PgOutputText.of(c);
    if (text == null || !text.startsWith("{{")) {
      return null;
    }
    PostgresType element = c.getType().getElementType();
    String elementClass = element != null && element.isEnumType() ? "e" : "b";
    String elementName = element == null ? "?" : element.getName();
    if (!ArrayLiteral.supports(elementName, elementClass)) {
      throw new ConnectException("column \"" + column + "\": an array of " + elementName + " with more than one "
          + "dimension cannot be carried exactly yet (arrays of integers, floats, booleans, numeric, text types, "
          + "uuid and enums can; docs/type-mapping.md)");
    }
    return ArrayLiteral.parse(text, elementName, elementClass);
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
      cached = new TableConverters(described, current, valueConverters);
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
