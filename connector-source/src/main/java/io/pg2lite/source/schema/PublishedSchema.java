package io.pg2lite.source.schema;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The published schema of one publication at one moment, as {@code pg2lite.published_schema(pub)}
 * reports it: tables keyed by OID (a rename keeps the OID), columns by attnum, indexes by name.
 */
public record PublishedSchema(String publication, List<Table> tables) {
  public PublishedSchema {
    tables = List.copyOf(tables);
  }

  /** Tables by OID. */
  public Map<Long, Table> byOid() {
    Map<Long, Table> m = new LinkedHashMap<>();
    tables.forEach(t -> m.put(t.oid(), t));
    return m;
  }

  /**
   * The tables without a row key ({@link Table#keyIndex} is null), which the source refuses to
   * start with; the same rule for {@code validate()} and the start-up.
   */
  public List<Table> tablesWithoutKey(boolean allowUniqueIndex) {
    return tables.stream().filter(t -> t.keyIndex(allowUniqueIndex) == null).toList();
  }

  /** A published table. {@code replicaIdentity} is pg_class.relreplident: d, n, f or i. */
  public record Table(long oid, long schemaOid, String schema, String name, String replicaIdentity,
      List<Column> columns, List<Index> indexes) {
    public Table {
      columns = List.copyOf(columns);
      indexes = List.copyOf(indexes);
    }

    public Index primaryKeyIndex() {
      return indexes.stream().filter(Index::primary).findFirst().orElse(null);
    }

    public Column column(String name) {
      return columns.stream().filter(c -> c.name().equals(name)).findFirst().orElse(null);
    }

    /**
     * The index whose columns identify rows, in this order of preference: the primary key, the
     * REPLICA IDENTITY index, and (when allowed) a unique, immediate, non-partial index whose
     * columns are all NOT NULL. Null when there is none.
     */
    public Index keyIndex(boolean allowUniqueIndex) {
      Index pk = primaryKeyIndex();
      if (pk != null) {
        return pk;
      }
      for (Index i : indexes) {
        if (i.replicaIdentity() && i.usableAsKey(this)) {
          return i;
        }
      }
      if (allowUniqueIndex) {
        for (Index i : indexes) {
          if (i.usableAsKey(this)) {
            return i;
          }
        }
      }
      return null;
    }
  }

  /**
   * A published column; {@code dataType} is the type name ({@code int4}, {@code text[]}), domains
   * resolved; {@code typmod} is Postgres' type modifier ({@code atttypmod}: precision, scale,
   * length), -1 when none (or when the schema was recorded before it was published).
   */
  public record Column(String name, int pos, String dataType, String typeClass, String elemTypeClass,
      Integer maxLength, boolean notNull, String dflt, int typmod) {
    public Column(String name, int pos, String dataType, String typeClass, String elemTypeClass, Integer maxLength,
        boolean notNull, String dflt) {
      this(name, pos, dataType, typeClass, elemTypeClass, maxLength, notNull, dflt, -1);
    }
  }

  /** An index of a published table; {@code valid} is false for partial, expression or invalid indexes. */
  public record Index(String name, String schema, boolean unique, boolean primary, boolean replicaIdentity,
      boolean immediate, boolean valid, List<IndexColumn> columns) {
    public Index {
      columns = List.copyOf(columns);
    }

    boolean usableAsKey(Table table) {
      return unique && immediate && valid && !columns.isEmpty() && columns.stream().allMatch(c -> {
        Column col = table.column(c.name());
        return col != null && col.notNull();
      });
    }
  }

  public record IndexColumn(String name, boolean desc) {}
}
