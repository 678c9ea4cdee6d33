package io.pg2lite.source.schema;

import io.pg2lite.protocol.schema.ColumnSpec;
import io.pg2lite.protocol.schema.ConstantDefault;
import io.pg2lite.protocol.schema.IndexSpec;
import io.pg2lite.protocol.schema.Relation;
import io.pg2lite.protocol.schema.ReplicaIdentity;
import io.pg2lite.protocol.schema.RowKey;
import io.pg2lite.protocol.schema.SortDirection;
import io.pg2lite.protocol.schema.TableMetadata;
import io.pg2lite.protocol.schema.TableSpec;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** Translates the published schema into the protocol's table, column and index specs. */
public final class ProtocolSpecs {
  private final boolean allowUniqueIndexKeys;

  public ProtocolSpecs(boolean allowUniqueIndexKeys) {
    this.allowUniqueIndexKeys = allowUniqueIndexKeys;
  }

  public TableSpec tableSpec(PublishedSchema.Table t) {
    Map<String, ColumnSpec> columns = new LinkedHashMap<>();
    for (PublishedSchema.Column c : t.columns()) {
      columns.put(c.name(), columnSpec(c));
    }
    PublishedSchema.Index pk = t.primaryKeyIndex();
    List<String> primaryKey = pk == null ? null : pk.columns().stream().map(PublishedSchema.IndexColumn::name).toList();
    return new TableSpec(t.schema(), t.name(), columns, primaryKey);
  }

  /**
   * The column's spec; its {@code dflt} is the default in the protocol's wire form when it is a
   * constant the replica can take ({@link ConstantDefault}), else absent.
   */
  public static ColumnSpec columnSpec(PublishedSchema.Column c) {
    ColumnSpec spec = new ColumnSpec(c.pos(), c.dataType(), c.typeClass(), c.elemTypeClass(), c.maxLength(),
        c.notNull(), null);
    return spec.withDflt(ConstantDefault.wireForm(c.dflt(), spec, c.typmod()));
  }

  /** Whether the column's default lets the replica do without a backfill of an added column. */
  static boolean hasConstantDefault(PublishedSchema.Column c) {
    return ConstantDefault.isConstant(c.dflt(), columnSpec(c), c.typmod());
  }

  /** The row-key columns of {@code t} (empty when it has none). */
  public List<String> rowKeyColumns(PublishedSchema.Table t) {
    PublishedSchema.Index key = t.keyIndex(allowUniqueIndexKeys);
    return key == null ? List.of() : key.columns().stream().map(PublishedSchema.IndexColumn::name).toList();
  }

  public TableMetadata metadata(PublishedSchema.Table t) {
    Map<String, Integer> rowKey = new LinkedHashMap<>();
    for (String col : rowKeyColumns(t)) {
      rowKey.put(col, t.column(col).pos());
    }
    return new TableMetadata(t.schemaOid(), t.oid(), rowKey);
  }

  public Relation relation(PublishedSchema.Table t) {
    return new Relation(t.schema(), t.name(), new RowKey(rowKeyColumns(t), identity(t.replicaIdentity())));
  }

  /**
   * Specs of the indexes the replica should create: valid ones other than the primary key's,
   * on published columns only (a publication's column list can leave an indexed column out).
   */
  public List<IndexSpec> indexSpecs(PublishedSchema.Table t) {
    List<IndexSpec> out = new ArrayList<>();
    for (PublishedSchema.Index i : t.indexes()) {
      if (replicated(t, i)) {
        out.add(indexSpec(t, i));
      }
    }
    return out;
  }

  /** Whether the replica has index {@code i}: see {@link #indexSpecs}. */
  static boolean replicated(PublishedSchema.Table t, PublishedSchema.Index i) {
    return !i.primary() && i.valid() && !i.columns().isEmpty()
        && i.columns().stream().allMatch(c -> t.column(c.name()) != null);
  }

  static IndexSpec indexSpec(PublishedSchema.Table t, PublishedSchema.Index i) {
    Map<String, SortDirection> cols = new LinkedHashMap<>();
    i.columns().forEach(c -> cols.put(c.name(), c.desc() ? SortDirection.DESC : SortDirection.ASC));
    return new IndexSpec(i.schema(), t.name(), i.name(), i.unique(), cols);
  }

  static ReplicaIdentity identity(String relreplident) {
    switch (relreplident) {
      case "d":
        return ReplicaIdentity.DEFAULT;
      case "n":
        return ReplicaIdentity.NOTHING;
      case "f":
        return ReplicaIdentity.FULL;
      case "i":
        return ReplicaIdentity.INDEX;
      default:
        throw new IllegalArgumentException("unknown relreplident '" + relreplident + "'");
    }
  }
}
