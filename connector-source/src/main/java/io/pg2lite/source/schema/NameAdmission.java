package io.pg2lite.source.schema;

import io.pg2lite.protocol.schema.QualifiedName;
import io.pg2lite.protocol.schema.ReplicaNames;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Decides which published tables, columns and indexes a replica can hold under their replica
 * names ({@link ReplicaNames}): two upstream names that are one SQLite identifier (dots, ASCII
 * case) cannot both be replicated, and names the replica keeps for itself cannot be used. The
 * first comes first: a table (column, index) admitted before keeps its place; among new ones the
 * older (lower OID, lower attnum) wins. The other is refused, named with the one it collides
 * with, and everything else goes on replicating (issue 33).
 *
 * <p>A refused table is left out of the schema and its rows are dropped; a refused column is left
 * out of its table and of its rows; a table whose row key would lose a column is refused whole;
 * an index whose name collides, or that covers a refused column, is left out. The admitted
 * schema is what the diff, the backfill and the sink see, so a refusal never reaches the replica.
 */
public final class NameAdmission {
  private NameAdmission() {}

  /**
   * The admitted part of a published schema.
   *
   * @param refusedTables upstream tables left out, with the reason
   * @param refusedColumns per admitted upstream table, its columns left out, with the reason
   */
  public record Admitted(PublishedSchema schema, Map<QualifiedName, String> refusedTables,
      Map<QualifiedName, Map<String, String>> refusedColumns) {
    /** Every refusal as one operator-ready line each, in a stable order. */
    public List<String> refusals() {
      List<String> out = new ArrayList<>();
      refusedTables.forEach((t, why) -> out.add("table " + quoted(t) + " is not replicated: " + why));
      refusedColumns.forEach((t, cols) -> cols.forEach((c, why) ->
          out.add("column \"" + c + "\" of " + quoted(t) + " is not replicated: " + why)));
      return out;
    }
  }

  /** {@code "schema"."name"} as SQL writes it: the operator can paste it, and a dot inside a name is unambiguous. */
  static String quoted(QualifiedName q) {
    return '"' + q.schema().replace("\"", "\"\"") + "\".\"" + q.name().replace("\"", "\"\"") + '"';
  }

  /**
   * Admits {@code proposed}, given what was admitted before ({@code previous}, null at the first
   * start): see the class comment for the rule.
   */
  public static Admitted admit(PublishedSchema proposed, PublishedSchema previous) {
    Map<Long, PublishedSchema.Table> before = previous == null ? Map.of() : previous.byOid();
    List<PublishedSchema.Table> order = new ArrayList<>(proposed.tables());
    order.sort(Comparator.comparing((PublishedSchema.Table t) -> !keptName(t, before.get(t.oid())))
        .thenComparingLong(PublishedSchema.Table::oid));

    Map<String, QualifiedName> tableNames = new HashMap<>(); // collision key -> upstream table
    Map<QualifiedName, String> refusedTables = new LinkedHashMap<>();
    Map<QualifiedName, Map<String, String>> refusedColumns = new LinkedHashMap<>();
    Map<Long, PublishedSchema.Table> admitted = new HashMap<>();
    for (PublishedSchema.Table t : order) {
      QualifiedName q = new QualifiedName(t.schema(), t.name());
      String replicaName = ReplicaNames.table(q);
      String key = ReplicaNames.collisionKey(replicaName);
      String reserved = ReplicaNames.reservedTable(replicaName);
      QualifiedName other = tableNames.get(key);
      if (reserved != null) {
        refusedTables.put(q, "its replica name \"" + replicaName + "\" is reserved (" + reserved + ")");
        continue;
      }
      if (other != null) {
        refusedTables.put(q, "its replica name \"" + replicaName + "\" is the replica name of " + quoted(other)
            + ", which is replicated (replica names join schema and table with a dot and ignore ASCII case; "
            + "rename one of the two, or publish only one)");
        continue;
      }
      Map<String, String> refused = new LinkedHashMap<>();
      PublishedSchema.Table kept = admitColumns(t, before.get(t.oid()), refused);
      PublishedSchema.Index key0 = t.keyIndex(true);
      String lostKey = key0 == null ? null : key0.columns().stream().map(PublishedSchema.IndexColumn::name)
          .filter(refused::containsKey).findFirst().orElse(null);
      if (lostKey != null) {
        refusedTables.put(q, "its row-key column \"" + lostKey + "\" cannot be replicated: " + refused.get(lostKey));
        continue;
      }
      tableNames.put(key, q);
      admitted.put(t.oid(), kept);
      if (!refused.isEmpty()) {
        refusedColumns.put(q, refused);
      }
    }
    List<PublishedSchema.Table> tables = admitIndexes(proposed, admitted, tableNames.keySet());
    return new Admitted(new PublishedSchema(proposed.publication(), tables), refusedTables, refusedColumns);
  }

  /**
   * The admitted tables, in {@code proposed}'s order, each with the indexes the replica can
   * create. Indexes share SQLite's namespace with tables: one that collides, or covers a refused
   * column, is left out (an index only speeds reads). An index that keys its table's rows is kept
   * whatever its name: the primary key is no SQLite index, and a unique key index claims its name
   * before the others.
   */
  private static List<PublishedSchema.Table> admitIndexes(PublishedSchema proposed,
      Map<Long, PublishedSchema.Table> admitted, Set<String> tableNames) {
    Set<String> indexNames = new HashSet<>();
    for (PublishedSchema.Table t : admitted.values()) {
      PublishedSchema.Index key = t.keyIndex(true);
      if (key != null && !key.primary()) {
        indexNames.add(ReplicaNames.collisionKey(ReplicaNames.table(new QualifiedName(key.schema(), key.name()))));
      }
    }
    List<PublishedSchema.Table> tables = new ArrayList<>();
    for (PublishedSchema.Table t : proposed.tables()) {
      PublishedSchema.Table kept = admitted.get(t.oid());
      if (kept == null) {
        continue;
      }
      PublishedSchema.Index key = kept.keyIndex(true);
      List<PublishedSchema.Index> indexes = new ArrayList<>();
      for (PublishedSchema.Index i : kept.indexes()) {
        if (i.primary() || i.equals(key)) {
          indexes.add(i);
          continue;
        }
        boolean coversRefused = i.columns().stream().anyMatch(c -> kept.column(c.name()) == null);
        String name = ReplicaNames.collisionKey(ReplicaNames.table(new QualifiedName(i.schema(), i.name())));
        boolean clashes = tableNames.contains(name) || !indexNames.add(name);
        if (!coversRefused && !clashes) {
          indexes.add(i);
        }
      }
      tables.add(new PublishedSchema.Table(kept.oid(), kept.schemaOid(), kept.schema(), kept.name(),
          kept.replicaIdentity(), kept.columns(), indexes));
    }
    return tables;
  }

  /** Whether {@code t} had the same replica name when it was admitted before. */
  private static boolean keptName(PublishedSchema.Table t, PublishedSchema.Table before) {
    return before != null && before.schema().equals(t.schema()) && before.name().equals(t.name());
  }

  /** {@code t} with its admissible columns; the others go to {@code refused} with the reason. */
  private static PublishedSchema.Table admitColumns(PublishedSchema.Table t, PublishedSchema.Table before,
      Map<String, String> refused) {
    Map<Integer, String> beforeNames = new HashMap<>();
    if (before != null) {
      before.columns().forEach(c -> beforeNames.put(c.pos(), c.name()));
    }
    List<PublishedSchema.Column> order = new ArrayList<>(t.columns());
    order.sort(Comparator.comparing((PublishedSchema.Column c) -> !c.name().equals(beforeNames.get(c.pos())))
        .thenComparingInt(PublishedSchema.Column::pos));
    Map<String, String> names = new HashMap<>();
    Set<Integer> admitted = new HashSet<>();
    for (PublishedSchema.Column c : order) {
      String reserved = ReplicaNames.reservedColumn(c.name());
      String other = names.get(ReplicaNames.collisionKey(c.name()));
      if (reserved != null) {
        refused.put(c.name(), "its name is reserved (" + reserved + ")");
      } else if (other != null) {
        refused.put(c.name(), "its name is the name of column \"" + other + "\" in SQLite, which ignores ASCII case");
      } else {
        names.put(ReplicaNames.collisionKey(c.name()), c.name());
        admitted.add(c.pos());
      }
    }
    if (refused.isEmpty()) {
      return t;
    }
    return new PublishedSchema.Table(t.oid(), t.schemaOid(), t.schema(), t.name(), t.replicaIdentity(),
        t.columns().stream().filter(c -> admitted.contains(c.pos())).toList(), t.indexes());
  }
}
