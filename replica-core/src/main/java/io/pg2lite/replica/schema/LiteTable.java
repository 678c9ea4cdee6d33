package io.pg2lite.replica.schema;

import io.pg2lite.protocol.stored.ReplicaStorage;
import io.pg2lite.replica.lite.SqlNames;
import java.util.Collection;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * What the replica knows of one replicated table: its columns in order with their storage, which
 * columns are still hidden (being backfilled), and its row key.
 *
 * <p>Immutable: a schema change makes a new {@code LiteTable} ({@code with...}) and
 * {@link ReplicaSchema} swaps it in, so a table handed to the row writers can never change under
 * them halfway through a change. Only {@link ReplicaSchema} and its helpers make new ones.
 *
 * <p>Two names: {@link #name} is the table's identity (the metadata rows, the change log, the
 * schema's map all use it); {@link #sqlName} is where its rows are in the file. They differ only
 * while the table is {@linkplain #isCopying being copied whole}: its rows then live under
 * {@link SqlNames#copying}, and readers see the table only once the copy is complete.
 */
public final class LiteTable {
  private final String name;
  private final String upstreamSchema;
  private final String upstreamName;
  private final Map<String, ReplicaStorage> columns;
  private final Set<String> hidden;
  private final List<String> rowKey;
  private final boolean copying;

  LiteTable(String name, String upstreamSchema, String upstreamName, List<String> rowKey,
      Map<String, ReplicaStorage> columns, Set<String> hidden, boolean copying) {
    this.name = name;
    this.copying = copying;
    this.upstreamSchema = upstreamSchema;
    this.upstreamName = upstreamName;
    this.rowKey = List.copyOf(rowKey);
    this.columns = Collections.unmodifiableMap(new LinkedHashMap<>(columns));
    this.hidden = Collections.unmodifiableSet(new LinkedHashSet<>(hidden));
  }

  /** The replica table's name ({@link io.pg2lite.replica.lite.SqlNames#table}). */
  public String name() {
    return name;
  }

  /**
   * Whether the table is being copied whole (published with rows, or the replica's first copy):
   * until its copy completes it is stored under {@link SqlNames#copying}, so a reader of the file
   * never sees a table with only part of its rows.
   */
  public boolean isCopying() {
    return copying;
  }

  /** The quoted name of the SQLite table holding the rows, for SQL text. */
  public String sqlName() {
    return SqlNames.quote(storedName());
  }

  /** The name of the SQLite table holding the rows, unquoted (for catalog look-ups). */
  public String storedName() {
    return copying ? SqlNames.copying(name) : name;
  }

  public String upstreamSchema() {
    return upstreamSchema;
  }

  public String upstreamName() {
    return upstreamName;
  }

  /** The columns that identify a row (primary key or replica-identity index); empty when none. */
  public List<String> rowKey() {
    return rowKey;
  }

  /** Every column in table order, with its storage. */
  public Map<String, ReplicaStorage> columns() {
    return columns;
  }

  public boolean hasColumn(String column) {
    return columns.containsKey(column);
  }

  /** The columns still being backfilled (their values are not complete yet). */
  public Set<String> hiddenColumns() {
    return hidden;
  }

  /** Whether some column is still being backfilled: only then do the backfill merge's records cost anything. */
  public boolean hasHiddenColumns() {
    return !hidden.isEmpty();
  }

  public boolean isHidden(String column) {
    return hidden.contains(column);
  }

  /** The storage of {@code column}; refuses a column the table does not have. */
  public ReplicaStorage storage(String column) {
    ReplicaStorage s = columns.get(column);
    if (s == null) {
      throw new IllegalArgumentException("table \"" + name + "\" has no column \"" + column + "\"");
    }
    return s;
  }

  /** With {@code column} added at the end (or, if it exists, changed in place), hidden or shown. */
  LiteTable withColumn(String column, ReplicaStorage storage, boolean isHidden) {
    Map<String, ReplicaStorage> cols = new LinkedHashMap<>(columns);
    cols.put(column, storage);
    Set<String> h = new LinkedHashSet<>(hidden);
    if (isHidden) {
      h.add(column);
    } else {
      h.remove(column);
    }
    return new LiteTable(name, upstreamSchema, upstreamName, rowKey, cols, h, copying);
  }

  /** With {@code oldName} renamed in place (its position and storage kept; hidden stays hidden). */
  LiteTable withColumnRenamed(String oldName, String newName) {
    Map<String, ReplicaStorage> cols = new LinkedHashMap<>();
    columns.forEach((k, v) -> cols.put(k.equals(oldName) ? newName : k, v));
    Set<String> h = new LinkedHashSet<>();
    hidden.forEach(k -> h.add(k.equals(oldName) ? newName : k));
    return new LiteTable(name, upstreamSchema, upstreamName, rowKey, cols, h, copying);
  }

  LiteTable withoutColumn(String column) {
    Map<String, ReplicaStorage> cols = new LinkedHashMap<>(columns);
    cols.remove(column);
    Set<String> h = new LinkedHashSet<>(hidden);
    h.remove(column);
    return new LiteTable(name, upstreamSchema, upstreamName, rowKey, cols, h, copying);
  }

  /** With {@code shown} no longer hidden (their backfill completed). */
  LiteTable withShown(Collection<String> shown) {
    Set<String> h = new LinkedHashSet<>(hidden);
    h.removeAll(shown);
    return new LiteTable(name, upstreamSchema, upstreamName, rowKey, columns, h, copying);
  }

  LiteTable withRowKey(List<String> key) {
    return new LiteTable(name, upstreamSchema, upstreamName, key, columns, hidden, copying);
  }

  LiteTable renamed(String newName, String newUpstreamSchema, String newUpstreamName) {
    return new LiteTable(newName, newUpstreamSchema, newUpstreamName, rowKey, columns, hidden, copying);
  }

  /** The same table, its copy complete: stored under its own name. */
  LiteTable published() {
    return new LiteTable(name, upstreamSchema, upstreamName, rowKey, columns, hidden, false);
  }
}
