package io.pg2lite.backfill.postgres;

import io.pg2lite.backfill.copy.TableCopy;
import io.pg2lite.backfill.state.BackfillRequest;
import io.pg2lite.backfill.state.SchemaIncompatibilityException;
import io.pg2lite.protocol.schema.BackfillStatus;
import io.pg2lite.protocol.schema.Relation;
import io.pg2lite.protocol.schema.RowKey;
import io.pg2lite.protocol.value.Value;
import io.pg2lite.protocol.watermark.Watermark;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * Rows of one table from an imported snapshot, through a server-side cursor (JDBC fetch size), so
 * memory holds one fetch whatever the table's size. The publication's row filter, if any, is the
 * copy's WHERE clause: a replica holds exactly the rows the publication would stream.
 *
 * <p>The snapshot's transaction belongs to {@link SharedSnapshot}, which several copies may read
 * in turn; a copy closes only its own cursor, and tells the snapshot when it has read its last
 * row ({@link SharedSnapshot#copyClosed}).
 *
 * <p>Locks: reading holds an ACCESS SHARE lock on the table until the snapshot's transaction
 * ends, so DDL on it (ALTER TABLE, DROP) waits that long: a snapshot is shared for at most
 * {@link SharedSnapshot#MAX_AGE_MS} and ends once it is that old and a copy has read its last
 * row, not when {@code backfill-completed} is written, to keep that wait short.
 */
final class PostgresTableCopy implements TableCopy {
  private final SharedSnapshot shared;
  private final Connection connection;
  private final Watermark snapshot;
  private final Relation relation;
  private final List<String> columns;
  private final List<ColumnReader> readers;
  private final long totalRows;
  private PreparedStatement select;
  private ResultSet rows;
  private long read;

  private PostgresTableCopy(SharedSnapshot shared, Watermark snapshot, Relation relation, List<String> columns,
      List<ColumnReader> readers, long totalRows) {
    this.shared = shared;
    this.connection = shared.connection();
    this.snapshot = snapshot;
    this.relation = relation;
    this.columns = columns;
    this.readers = readers;
    this.totalRows = totalRows;
  }

  /**
   * @param filter the publication's row filter for the table, or null; read by the caller outside
   *     the snapshot's transaction ({@link SharedSnapshot#rowFilter})
   */
  static PostgresTableCopy open(SharedSnapshot shared, BackfillRequest request, String filter, int fetchRows)
      throws SQLException {
    return open(shared, request, filter, fetchRows, null);
  }

  /**
   * As {@link #open(SharedSnapshot, BackfillRequest, String, int)}, with the rows the caller
   * already counted in the same snapshot under the same filter ({@code knownTotal}; null: count
   * them here): a count is a scan of the table.
   */
  static PostgresTableCopy open(SharedSnapshot shared, BackfillRequest request, String filter, int fetchRows,
      Long knownTotal) throws SQLException {
    Connection c = shared.connection();
    Watermark snapshot = shared.watermark();
    Map<String, ColumnType> types = SnapshotSchema.validate(c, request);
    List<String> key = List.copyOf(request.metadata().rowKey().keySet());
    List<String> copied = new ArrayList<>();
    for (String col : request.columns().keySet()) {
      if (!key.contains(col)) {
        copied.add(col);
      }
    }
    String from = " FROM " + quote(request.table().schema()) + "." + quote(request.table().name());
    if (filter != null) {
      from += " WHERE " + filter;
    }
    long total;
    if (knownTotal != null) {
      total = knownTotal;
    } else {
      try (Statement s = c.createStatement(); ResultSet rs = s.executeQuery("SELECT count(*)" + from)) {
        rs.next();
        total = rs.getLong(1);
      }
    }
    List<ColumnReader> readers = new ArrayList<>();
    StringBuilder sql = new StringBuilder("SELECT ");
    List<String> all = new ArrayList<>(key);
    all.addAll(copied);
    for (String col : all) {
      ColumnReader r = ColumnReader.of(types.get(col));
      readers.add(r);
      sql.append(readers.size() == 1 ? "" : ", ").append(r.expression(quote(col)));
    }
    if (all.isEmpty()) {
      throw new SchemaIncompatibilityException("nothing to copy for " + request.key());
    }
    PostgresTableCopy copy = new PostgresTableCopy(shared, snapshot,
        new Relation(request.table().schema(), request.table().name(), new RowKey(key, null)), List.copyOf(copied),
        readers, total);
    copy.select = c.prepareStatement(sql + from, ResultSet.TYPE_FORWARD_ONLY, ResultSet.CONCUR_READ_ONLY);
    copy.maxFetchRows = fetchRows;
    copy.select.setFetchSize(1); // until a row shows how wide they are (FETCH_BYTES)
    copy.rows = copy.select.executeQuery();
    return copy;
  }

  /** What one fetch of rows may hold in memory, about. */
  static final long FETCH_BYTES = 16L << 20;
  private int maxFetchRows;
  private int fetchSize = 1;
  private long widestRow;

  @Override
  public Watermark snapshot() {
    return snapshot;
  }

  @Override
  public Relation relation() {
    return relation;
  }

  @Override
  public List<String> columns() {
    return columns;
  }

  @Override
  public List<List<Value>> next(int maxRows, long maxBytes) throws SQLException {
    List<List<Value>> out = new ArrayList<>(Math.min(maxRows, 4096));
    if (rows == null) {
      return out;
    }
    boolean more = true;
    long bytes = 0;
    while (out.size() < maxRows && bytes < maxBytes && (more = rows.next())) {
      List<Value> row = new ArrayList<>(readers.size());
      long rowBytes = 0;
      for (int i = 0; i < readers.size(); i++) {
        Value v = readers.get(i).read(rows, i + 1);
        rowBytes += estimatedBytes(v);
        row.add(v);
      }
      bytes += rowBytes;
      out.add(row);
      fitFetch(rowBytes);
    }
    read += out.size();
    if (!more) {
      close(); // every row read: the cursor goes, and an old snapshot's transaction with the table's lock
    }
    return out;
  }

  /**
   * Sizes the next fetches to the widest row seen so far: a fetch holds about {@link #FETCH_BYTES}
   * (at least one row, at most the configured rows). The first fetch is one row, so a table of
   * 256 MB values never has several of them in memory at once; a table of small rows reaches the
   * full fetch after its first row. (Postgres' own size statistics cannot tell: TOAST compresses.)
   */
  private void fitFetch(long rowBytes) throws SQLException {
    if (rowBytes <= widestRow) {
      return;
    }
    widestRow = rowBytes;
    int fit = (int) Math.max(1, Math.min(maxFetchRows, FETCH_BYTES / Math.max(1, widestRow)));
    if (fit != fetchSize) {
      fetchSize = fit;
      rows.setFetchSize(fit);
    }
  }

  /** About the JSON size of a value: its text's length, 8 for scalars (escapes not counted). */
  static long estimatedBytes(Value v) {
    if (v instanceof Value.Text t) {
      return t.value().length() + 2;
    }
    if (v instanceof Value.Array a) {
      long n = 2;
      for (Value e : a.elements()) {
        n += estimatedBytes(e) + 1;
      }
      return n;
    }
    return 8;
  }

  /** The cursor is closed once a fetch ends the rows. */
  @Override
  public boolean finished() {
    return rows == null;
  }

  @Override
  public BackfillStatus status() {
    return new BackfillStatus(read, totalRows, null);
  }

  @Override
  public void close() {
    if (rows == null) {
      return;
    }
    try {
      rows.close();
      select.close();
    } catch (SQLException ignored) {
      // the snapshot's transaction ends soon either way
    }
    rows = null;
    select = null;
    shared.copyClosed();
  }

  static String quote(String identifier) {
    return "\"" + identifier.replace("\"", "\"\"") + "\"";
  }
}
