package io.pg2lite.backfill.verify;

import io.pg2lite.protocol.schema.ColumnSpec;
import io.pg2lite.protocol.schema.QualifiedName;
import io.pg2lite.protocol.schema.Relation;
import io.pg2lite.protocol.schema.TableMetadata;
import io.pg2lite.protocol.stored.ReplicaStorage;
import java.util.List;
import java.util.Objects;
import java.util.SortedMap;
import java.util.TreeMap;

/**
 * A published table as a verification reads it: its relation (the row key replicas key it by),
 * its catalog identity, and every published column with its spec, in name order (the order a
 * row is hashed in, {@link io.pg2lite.protocol.verify.RowHash}).
 */
public record VerifyTable(Relation relation, TableMetadata metadata, SortedMap<String, ColumnSpec> columns) {
  public VerifyTable {
    Objects.requireNonNull(relation, "relation");
    Objects.requireNonNull(metadata, "metadata");
    columns = new TreeMap<>(columns);
  }

  public QualifiedName name() {
    return relation.table();
  }

  /** The row-key columns, in key order. */
  public List<String> key() {
    return relation.rowKey().columns();
  }

  public ReplicaStorage storage(String column) {
    ColumnSpec spec = columns.get(column);
    if (spec == null) {
      throw new IllegalArgumentException("table " + name() + " has no column " + column);
    }
    return ReplicaStorage.of(spec);
  }

  /**
   * Whether the key is one column of a Postgres integer type: its rows fall into readable key
   * ranges, and a request may name a key range.
   */
  public boolean hasIntegerKey() {
    if (key().size() != 1) {
      return false;
    }
    ColumnSpec spec = columns.get(key().get(0));
    return spec != null && List.of("int2", "int4", "int8").contains(spec.dataType());
  }
}
