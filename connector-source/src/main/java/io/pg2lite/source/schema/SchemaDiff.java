package io.pg2lite.source.schema;

import io.pg2lite.protocol.message.SchemaChange;
import io.pg2lite.protocol.schema.BackfillId;
import io.pg2lite.protocol.schema.Column;
import io.pg2lite.protocol.schema.QualifiedName;
import io.pg2lite.protocol.schema.TableMetadata;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;

/**
 * Turns the published schema before and after one DDL command into schema-change messages.
 *
 * <p>Tables are matched by OID, columns by attnum and indexes by schema-qualified name, so a
 * rename is a rename, not a drop and a create. Order (the replica applies them one by one, and
 * each must be valid when applied): drop-index, drop-table, then per kept table rename-table,
 * update-table-metadata, drop-column, update-column, add-column, then create-table, create-index.
 *
 * <p>Backfill rules: a table that enters the publication other than by being created empty
 * (ALTER PUBLICATION ... ADD TABLE, CREATE TABLE AS, a move into a published schema) is
 * backfilled whole; an added column is backfilled when its default cannot be expressed on the
 * replica ({@link io.pg2lite.protocol.schema.ConstantDefault}) or when it appears through ALTER
 * PUBLICATION.
 *
 * <p>A column whose type changed is copied again (ADR 0008): Postgres rewrote every value with
 * the command's {@code USING} expression, which the replica cannot evaluate (SQLite's own
 * conversion gives {@code 2.6535840034484863} where Postgres has {@code 2.653584}, keeps a blob
 * where Postgres has {@code \\x...} text, and knows nothing of {@code USING NULL}). A non-key
 * column is sent as drop-column + add-column with a backfill, and the indexes on it are dropped
 * and re-created; a table whose row-key column changed type is sent as drop-table + create-table
 * with every column backfilled, since rows are merged by their key.
 */
public final class SchemaDiff {
  /**
   * The command of a diff whose command is not known (the replication stream's, ADR 0027): as for
   * ALTER PUBLICATION, what it adds is backfilled, since nothing says what values it holds.
   */
  public static final String UNKNOWN_COMMAND = "";
  /** The command tag of a resync request ({@code pg2lite.resync}): no DDL, tables copied again. */
  public static final String RESYNC = "PG2LITE RESYNC";
  /** The replica's row-version column: a published column of that name cannot be replicated. */
  public static final String RESERVED_COLUMN = "_0_version";

  private final ProtocolSpecs specs;
  private final CopyingColumns copying;

  public SchemaDiff(ProtocolSpecs specs) {
    this(specs, CopyingColumns.NONE);
  }

  /** @param copying which columns a backfill is still copying as of the log's end */
  public SchemaDiff(ProtocolSpecs specs, CopyingColumns copying) {
    this.specs = specs;
    this.copying = copying;
  }

  /** Signals a schema change pg2lite cannot replicate; the source stops rather than skip it. */
  public static final class UnsupportedSchemaChangeException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    public UnsupportedSchemaChangeException(String message) {
      super(message);
    }
  }

  public List<SchemaChange> diff(PublishedSchema before, PublishedSchema after, String tag) {
    return diff(before, after, tag, Set.of());
  }

  /**
   * As {@link #diff(PublishedSchema, PublishedSchema, String)}, with the tables of {@code resynced}
   * (OIDs of kept tables) copied again whole as well: dropped, created with every column to be
   * backfilled, their indexes created again.
   */
  public List<SchemaChange> diff(PublishedSchema before, PublishedSchema after, String tag, Set<Long> resynced) {
    Map<Long, PublishedSchema.Table> old = before.byOid();
    Map<Long, PublishedSchema.Table> now = after.byOid();
    after.tables().forEach(SchemaDiff::validate);

    List<SchemaChange> out = new ArrayList<>();
    Set<Long> recopied = new HashSet<>(recopied(old, now, tag));
    resynced.stream().filter(old::containsKey).filter(now::containsKey).forEach(recopied::add);
    Map<String, IndexState> oldIndexes = indexes(before);
    Map<String, IndexState> newIndexes = indexes(after);
    oldIndexes.forEach((name, idx) -> {
      IndexState n = newIndexes.get(name);
      if (n == null || !n.sameShape(idx) || recopied.contains(idx.table.oid())) {
        out.add(new SchemaChange.DropIndex(new QualifiedName(idx.index.schema(), idx.index.name())));
      }
    });
    old.forEach((oid, t) -> {
      if (!now.containsKey(oid) || recopied.contains(oid)) {
        out.add(new SchemaChange.DropTable(new QualifiedName(t.schema(), t.name())));
      }
    });
    now.forEach((oid, t) -> {
      PublishedSchema.Table o = old.get(oid);
      if (o != null && !recopied.contains(oid)) {
        diffTable(o, t, tag, out);
      }
    });
    boolean createdEmpty = tag.equals("CREATE TABLE");
    now.forEach((oid, t) -> {
      if (!old.containsKey(oid) || recopied.contains(oid)) {
        Map<String, BackfillId> backfill = null;
        if (!createdEmpty || recopied.contains(oid)) {
          backfill = new LinkedHashMap<>();
          for (PublishedSchema.Column c : t.columns()) {
            backfill.put(c.name(), new BackfillId(c.pos()));
          }
        }
        out.add(new SchemaChange.CreateTable(specs.tableSpec(t), specs.metadata(t), backfill));
      }
    });
    newIndexes.forEach((name, idx) -> {
      IndexState o = oldIndexes.get(name);
      if (o == null || !o.sameShape(idx) || recopied.contains(idx.table.oid())) {
        out.add(new SchemaChange.CreateIndex(ProtocolSpecs.indexSpec(idx.table, idx.index)));
      }
    });
    return out;
  }

  private void diffTable(PublishedSchema.Table o, PublishedSchema.Table t, String tag, List<SchemaChange> out) {
    QualifiedName name = new QualifiedName(t.schema(), t.name());
    if (!o.schema().equals(t.schema()) || !o.name().equals(t.name())) {
      out.add(new SchemaChange.RenameTable(new QualifiedName(o.schema(), o.name()), name));
    }
    TableMetadata oldMeta = specs.metadata(o);
    TableMetadata newMeta = specs.metadata(t);
    if (!oldMeta.equals(newMeta)) {
      out.add(new SchemaChange.UpdateTableMetadata(name, oldMeta, newMeta));
    }
    Map<Integer, PublishedSchema.Column> oldCols = byPos(o);
    Map<Integer, PublishedSchema.Column> newCols = byPos(t);
    oldCols.forEach((pos, c) -> {
      if (!newCols.containsKey(pos) || retyped(c, newCols.get(pos))) {
        out.add(new SchemaChange.DropColumn(name, c.name()));
      }
    });
    List<PublishedSchema.Column[]> updates = new ArrayList<>();
    Set<String> names = new HashSet<>();
    oldCols.forEach((pos, c) -> {
      PublishedSchema.Column n = newCols.get(pos);
      if (n != null && !retyped(c, n)) {
        names.add(c.name());
        if (!n.name().equals(c.name()) || n.notNull() != c.notNull()) {
          updates.add(new PublishedSchema.Column[] {c, n});
        }
      }
    });
    updateColumns(name, updates, names, out);
    newCols.forEach((pos, c) -> {
      if (retyped(oldCols.get(pos), c)) {
        out.add(new SchemaChange.AddColumn(name, new Column(c.name(), ProtocolSpecs.columnSpec(c).withDflt(null)),
            newMeta, new BackfillId(c.pos())));
      } else if (!oldCols.containsKey(pos)) {
        boolean backfill = addedWithBackfill(c, tag);
        Column column = new Column(c.name(), backfill
            ? ProtocolSpecs.columnSpec(c).withDflt(null) : ProtocolSpecs.columnSpec(c));
        out.add(new SchemaChange.AddColumn(name, column, newMeta, backfill ? new BackfillId(c.pos()) : null));
      }
    });
  }

  /**
   * The column updates of one table in an order the replica can apply one by one: a rename
   * waits until no other column holds its new name. Several renames in one diff (the replication
   * stream's, ADR 0027, which sees the outcome of many commands at once) can form a cycle: two
   * columns that swapped names. One of them then takes a name of its own first.
   *
   * @param names the table's column names after the drops
   */
  private static void updateColumns(QualifiedName table, List<PublishedSchema.Column[]> updates, Set<String> names,
      List<SchemaChange> out) {
    List<PublishedSchema.Column[]> pending = new ArrayList<>(updates);
    while (!pending.isEmpty()) {
      boolean progress = false;
      for (java.util.Iterator<PublishedSchema.Column[]> it = pending.iterator(); it.hasNext(); ) {
        PublishedSchema.Column[] u = it.next();
        if (u[1].name().equals(u[0].name()) || !names.contains(u[1].name())) {
          out.add(new SchemaChange.UpdateColumn(table, new Column(u[0].name(), ProtocolSpecs.columnSpec(u[0])),
              new Column(u[1].name(), ProtocolSpecs.columnSpec(u[1]))));
          names.remove(u[0].name());
          names.add(u[1].name());
          it.remove();
          progress = true;
        }
      }
      if (!progress) {
        PublishedSchema.Column[] u = pending.get(0);
        String aside = u[0].name() + " (renamed)";
        for (int i = 2; names.contains(aside); i++) {
          aside = u[0].name() + " (renamed " + i + ")";
        }
        PublishedSchema.Column moved = new PublishedSchema.Column(aside, u[0].pos(), u[0].dataType(),
            u[0].typeClass(), u[0].elemTypeClass(), u[0].maxLength(), u[0].notNull(), u[0].dflt(), u[0].typmod());
        out.add(new SchemaChange.UpdateColumn(table, new Column(u[0].name(), ProtocolSpecs.columnSpec(u[0])),
            new Column(aside, ProtocolSpecs.columnSpec(moved))));
        names.remove(u[0].name());
        names.add(aside);
        u[0] = moved;
      }
    }
  }

  /**
   * Types whose modifier changes the values Postgres keeps: {@code char(n)} pads, numeric's scale
   * and the time types' precision round. (A varchar's length only checks, and bit strings are
   * not replicated as numbers.)
   */
  private static final Set<String> VALUE_TYPMODS = Set.of(
      "bpchar", "numeric", "timestamp", "timestamptz", "time", "timetz", "interval");

  /** Whether the column at one attnum changed type or a value-changing modifier (its values were rewritten). */
  private static boolean retyped(PublishedSchema.Column before, PublishedSchema.Column after) {
    if (before == null || after == null) {
      return false;
    }
    if (!before.dataType().equals(after.dataType())) {
      return true;
    }
    String base = after.dataType().endsWith("[]") ? after.dataType().substring(0, after.dataType().indexOf('['))
        : after.dataType();
    return before.typmod() != after.typmod() && VALUE_TYPMODS.contains(base);
  }

  /** Whether a column that is new on a kept table gets its values from a backfill. */
  private static boolean addedWithBackfill(PublishedSchema.Column c, String tag) {
    return tag.equals("ALTER PUBLICATION") || tag.equals(UNKNOWN_COMMAND) || !ProtocolSpecs.hasConstantDefault(c);
  }

  /**
   * Kept tables that are copied again whole, because rows merge by their key and the replica
   * cannot have the key's values: a row-key column (before or after) changed type, or the new
   * key includes a column added by this command with a backfill ({@code ADD COLUMN k date
   * DEFAULT now(), ADD PRIMARY KEY (id, k)}: every replica row would have k NULL, and each
   * copied row would be a second row beside it), or a column an earlier command added with a
   * backfill that is still being copied (the same two statements in two transactions, the
   * second before the copy completed: replicas used to stop there, "the replica cannot key rows
   * on it").
   */
  private Set<Long> recopied(Map<Long, PublishedSchema.Table> old, Map<Long, PublishedSchema.Table> now,
      String tag) {
    Set<Long> out = new HashSet<>();
    now.forEach((oid, t) -> {
      PublishedSchema.Table o = old.get(oid);
      if (o == null) {
        return;
      }
      Set<Integer> newKey = new HashSet<>(specs.metadata(t).rowKey().values());
      Set<Integer> oldKey = new HashSet<>(specs.metadata(o).rowKey().values());
      Set<Integer> keyPositions = new HashSet<>(oldKey);
      keyPositions.addAll(newKey);
      Map<Integer, PublishedSchema.Column> before = byPos(o);
      for (PublishedSchema.Column c : t.columns()) {
        PublishedSchema.Column was = before.get(c.pos());
        boolean retypedKey = keyPositions.contains(c.pos()) && retyped(was, c);
        boolean backfilledKey = newKey.contains(c.pos()) && was == null && addedWithBackfill(c, tag);
        boolean keyOntoACopy = newKey.contains(c.pos()) && !oldKey.contains(c.pos()) && was != null
            && copying.copying(new QualifiedName(o.schema(), o.name()), was.name());
        if (retypedKey || backfilledKey || keyOntoACopy) {
          out.add(oid);
        }
      }
    });
    return out;
  }

  private static void validate(PublishedSchema.Table t) {
    if ("n".equals(t.replicaIdentity())) {
      throw new UnsupportedSchemaChangeException("table " + t.schema() + "." + t.name()
          + " has REPLICA IDENTITY NOTHING: its updates and deletes cannot be replicated");
    }
    for (PublishedSchema.Column c : t.columns()) {
      if (c.name().equals(RESERVED_COLUMN)) {
        throw new UnsupportedSchemaChangeException("table " + t.schema() + "." + t.name() + " has a column named "
            + RESERVED_COLUMN + ", which the replica reserves for row versions");
      }
    }
  }

  private static Map<Integer, PublishedSchema.Column> byPos(PublishedSchema.Table t) {
    Map<Integer, PublishedSchema.Column> m = new LinkedHashMap<>();
    t.columns().forEach(c -> m.put(c.pos(), c));
    return m;
  }

  /** An index with what decides whether it must be re-created: flags and attnum/direction pairs. */
  private record IndexState(PublishedSchema.Table table, PublishedSchema.Index index, List<String> shape) {
    boolean sameShape(IndexState other) {
      return shape.equals(other.shape) && index.unique() == other.index.unique()
          && index.immediate() == other.index.immediate();
    }
  }

  private static Map<String, IndexState> indexes(PublishedSchema schema) {
    Map<String, IndexState> out = new LinkedHashMap<>();
    for (PublishedSchema.Table t : schema.tables()) {
      for (PublishedSchema.Index i : t.indexes()) {
        if (!ProtocolSpecs.replicated(t, i)) {
          continue;
        }
        List<String> shape = new ArrayList<>();
        shape.add("table:" + t.oid());
        for (PublishedSchema.IndexColumn c : i.columns()) {
          PublishedSchema.Column col = t.column(c.name());
          // The type is part of the shape: a retyped column is dropped and added again on the
          // replica, which drops its indexes, so they must be created again.
          shape.add(Objects.requireNonNull(col, c.name()).pos() + " " + col.dataType() + (c.desc() ? " DESC" : " ASC"));
        }
        out.put(i.schema() + "." + i.name(), new IndexState(t, i, shape));
      }
    }
    return out;
  }
}
