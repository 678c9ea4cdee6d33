package io.pg2lite.replica.schema;

import io.pg2lite.protocol.schema.Relation;
import io.pg2lite.protocol.schema.ReplicaIdentity;
import io.pg2lite.protocol.value.Row;
import io.pg2lite.protocol.value.Value;
import io.pg2lite.replica.lite.LiteValues;
import io.pg2lite.replica.lite.SqlNames;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.util.List;
import java.util.Map;

/**
 * A row's key: which of a change's columns identify the row, and how a statement finds it.
 *
 * <p>Keys are matched with {@code IS}, not {@code =}: a replica-identity index may allow NULL
 * in its columns, and {@code NULL = NULL} would find no row.
 */
public final class RowKeys {
  private RowKeys() {}

  /** The key columns of a row: the relation's, or the replica's own key under REPLICA IDENTITY FULL. */
  public static Row keyOf(LiteTable t, Relation relation, Row row) {
    List<String> cols = relation.rowKey().type() == ReplicaIdentity.FULL || relation.rowKey().columns().isEmpty()
        ? t.rowKey() : relation.rowKey().columns();
    if (cols.isEmpty()) {
      throw new IllegalArgumentException("cannot replicate a change of table " + t.name() + ": it has no row key "
          + "(primary key or unique index)");
    }
    Row.Builder b = Row.builder();
    for (String col : cols) {
      Value v = row.get(col);
      if (v == null) {
        throw new IllegalArgumentException("change of table " + t.name() + " lacks key column \"" + col + "\"");
      }
      b.put(col, v);
    }
    return b.build();
  }

  /** {@code "k1" IS ? AND "k2" IS ?} for the columns of {@code key}. */
  public static String where(Row key) {
    StringBuilder sb = new StringBuilder();
    for (String col : key.values().keySet()) {
      sb.append(sb.length() == 0 ? "" : " AND ").append(SqlNames.quote(col)).append(" IS ?");
    }
    return sb.toString();
  }

  /** Binds the values of {@code key} from parameter {@code from} on; returns the next parameter index. */
  public static int bindKey(PreparedStatement ps, int from, LiteTable t, Row key) throws SQLException {
    int i = from;
    for (Map.Entry<String, Value> e : key.values().entrySet()) {
      LiteValues.bind(ps, i++, e.getValue(), t.storage(e.getKey()));
    }
    return i;
  }
}
