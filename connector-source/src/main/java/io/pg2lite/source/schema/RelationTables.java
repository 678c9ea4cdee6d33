package io.pg2lite.source.schema;

import io.pg2lite.source.replication.ReplicationEvent;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.IntSupplier;

/**
 * Turns pgoutput's description of a table (a Relation message) into the published table the
 * tracker diffs (ADR 0027).
 *
 * <p>A Relation message is exact at its place in the stream but says little: column names, type
 * OIDs, modifiers, which columns are the replica identity. The rest (attnums, NOT NULL, defaults,
 * indexes, the schema's OID) comes from the catalog as it is now, which may be ahead of the
 * stream, so a catalog column is used only where it agrees with the message (same name, type and
 * modifier). The attnum decides what the diff does ({@link SchemaDiff} matches columns by attnum):
 * <ul>
 *   <li>a column the tracker holds and the catalog agrees with at the same attnum is unchanged;
 *   <li>one the catalog has at another attnum was dropped and added again: it takes the catalog's,
 *       so the diff drops it and adds it with a backfill;
 *   <li>one the tracker holds and the catalog no longer agrees with (changed again since) keeps
 *       the tracker's attnum; the next Relation message or catalog check sees the later change;
 *   <li>a new name or type takes the catalog's attnum where it agrees (a rename keeps its attnum,
 *       so the diff renames; a retype too, so the diff copies the column again), else an attnum
 *       of its own below zero (never a real one): the column is added with a backfill, and the
 *       next catalog check, seeing the real attnum, replaces it once more.
 * </ul>
 * Where the message cannot tell a rename from a drop and an add, the result is a drop and an add
 * with a backfill: right either way, and only the affected columns are copied.
 */
final class RelationTables {
  private RelationTables() {}

  /** Whether {@code r} describes {@code tracked} as the tracker holds it: nothing changed. */
  static boolean describes(PublishedSchema.Table tracked, ReplicationEvent.Relation r,
      Map<Long, CatalogView.TypeName> types, ProtocolSpecs specs) {
    if (!tracked.schema().equals(r.schema()) || !tracked.name().equals(r.name())
        || !tracked.replicaIdentity().equals(String.valueOf(r.replicaIdentity()))
        || tracked.columns().size() != r.columns().size()) {
      return false;
    }
    for (int i = 0; i < r.columns().size(); i++) {
      ReplicationEvent.RelationColumn rc = r.columns().get(i);
      CatalogView.TypeName type = types.get(rc.typeOid());
      // In order too: two columns of one type that swapped names are the same names and types.
      PublishedSchema.Column c = tracked.columns().get(i);
      if (type == null || !c.name().equals(rc.name()) || !c.dataType().equals(type.dataType())
          || c.typmod() != rc.typmod()) {
        return false;
      }
    }
    Set<String> key = streamKey(r);
    return key.isEmpty() || key.equals(new LinkedHashSet<>(specs.rowKeyColumns(tracked)));
  }

  /**
   * The table {@code r} describes.
   *
   * @param catalog the table (same OID) in the catalog now, or null when the catalog has none
   * @param tracked the table as the tracker holds it, or null when it holds none
   * @param schemaOid the OID of {@code r}'s schema
   * @param unknownPos hands out attnums below zero, each once, for columns whose attnum is not known
   */
  static PublishedSchema.Table table(ReplicationEvent.Relation r, Map<Long, CatalogView.TypeName> types,
      PublishedSchema.Table catalog, PublishedSchema.Table tracked, long schemaOid, IntSupplier unknownPos) {
    Set<String> key = streamKey(r);
    List<PublishedSchema.Column> columns = new ArrayList<>();
    // The columns that are the catalog's own (same attnum): an index of the catalog is kept only
    // when all its columns are.
    Map<String, PublishedSchema.Column> fromCatalog = new HashMap<>();
    for (ReplicationEvent.RelationColumn rc : r.columns()) {
      CatalogView.TypeName type = types.get(rc.typeOid());
      PublishedSchema.Column was;
      PublishedSchema.Column now;
      if (type == null) {
        // A type dropped since (an enum, after its column was retyped): the column stays as the
        // tracker has it; one the tracker lacks becomes text (pgoutput sends its values as text)
        // with an attnum of its own, which the Relation message or check that follows replaces.
        PublishedSchema.Column known = tracked == null ? null : tracked.column(rc.name());
        boolean same = known != null && known.typmod() == rc.typmod();
        type = same ? new CatalogView.TypeName(known.dataType(), known.typeClass(), known.elemTypeClass())
            : new CatalogView.TypeName("text", "b", null);
        was = same ? known : null;
        now = null;
      } else {
        was = agreeing(tracked, rc, type);
        now = agreeing(catalog, rc, type);
      }
      PublishedSchema.Column basis = now != null && (was == null || was.pos() != now.pos()) ? now
          : was != null ? was : now;
      int pos = basis != null ? basis.pos() : unknownPos.getAsInt();
      // NOT NULL and defaults never reach the stream: the catalog's are the best known, where its
      // column is this one.
      PublishedSchema.Column meta = now != null && now.pos() == pos ? now : basis;
      boolean notNull = key.contains(rc.name()) || meta != null && meta.notNull();
      String dflt = meta != null ? meta.dflt() : null;
      String dataType = type.dataType();
      Integer maxLength = ("varchar".equals(dataType) || "bpchar".equals(dataType)) && rc.typmod() > 4
          ? rc.typmod() - 4 : null;
      columns.add(new PublishedSchema.Column(rc.name(), pos, dataType, type.typeClass(), type.elemTypeClass(),
          maxLength, notNull, dflt, rc.typmod()));
      if (now != null && now.pos() == pos) {
        fromCatalog.put(rc.name(), now);
      }
    }
    List<PublishedSchema.Index> indexes = new ArrayList<>();
    if (catalog != null) {
      for (PublishedSchema.Index i : catalog.indexes()) {
        if (i.columns().stream().allMatch(c -> fromCatalog.containsKey(c.name()))) {
          indexes.add(i);
        }
      }
    }
    keyIndex(r, key, indexes);
    return new PublishedSchema.Table(r.oid(), schemaOid, r.schema(), r.name(), String.valueOf(r.replicaIdentity()),
        columns, indexes);
  }

  /** The column of {@code table} named as {@code rc} with its type and modifier, or null. */
  private static PublishedSchema.Column agreeing(PublishedSchema.Table table, ReplicationEvent.RelationColumn rc,
      CatalogView.TypeName type) {
    PublishedSchema.Column c = table == null ? null : table.column(rc.name());
    return c != null && c.dataType().equals(type.dataType()) && c.typmod() == rc.typmod() ? c : null;
  }

  /**
   * The row key the stream states: the replica identity's columns under REPLICA IDENTITY DEFAULT
   * (the primary key) or USING INDEX; none under FULL (every column is flagged; the key is the
   * primary key the catalog names) or when the table has no identity.
   */
  private static Set<String> streamKey(ReplicationEvent.Relation r) {
    Set<String> key = new LinkedHashSet<>();
    if (r.replicaIdentity() == 'd' || r.replicaIdentity() == 'i') {
      r.columns().stream().filter(ReplicationEvent.RelationColumn::key).forEach(c -> key.add(c.name()));
    }
    return key;
  }

  /**
   * Makes {@code indexes} name the stream's key: the catalog's key index when it has those
   * columns, else one in its place over the stream's key columns (the catalog's key changed
   * since), so rows are keyed as they were written.
   */
  private static void keyIndex(ReplicationEvent.Relation r, Set<String> key, List<PublishedSchema.Index> indexes) {
    if (key.isEmpty()) {
      return;
    }
    boolean primary = r.replicaIdentity() == 'd';
    for (PublishedSchema.Index i : indexes) {
      if ((primary ? i.primary() : i.replicaIdentity()) && key.equals(names(i))) {
        return;
      }
    }
    indexes.removeIf(i -> primary ? i.primary() : i.replicaIdentity());
    List<PublishedSchema.IndexColumn> columns = key.stream().map(c -> new PublishedSchema.IndexColumn(c, false))
        .toList();
    indexes.add(new PublishedSchema.Index(r.name() + (primary ? "_pkey" : "_replica_identity"), r.schema(), true,
        primary, !primary, true, true, columns));
  }

  private static Set<String> names(PublishedSchema.Index i) {
    Set<String> out = new LinkedHashSet<>();
    i.columns().forEach(c -> out.add(c.name()));
    return out;
  }
}
