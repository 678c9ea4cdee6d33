package io.pg2lite.source.schema;

import java.util.Collection;
import java.util.Map;

/**
 * What the source in replication-stream mode asks the catalog while it reads the stream (ADR
 * 0027): the catalog as it is now, which may be ahead of the stream, so every answer is only used
 * where it agrees with what the stream said. Implementations heal transient faults themselves
 * (the stream waits meanwhile); a permanent one throws.
 */
public interface CatalogView {
  /**
   * The tables of {@code oids} now, and every user table whose OID is above {@code newerThan}
   * (new tables), as {@code pg2lite.published_schema(pub)} describes a table, all their columns; a
   * table that no longer exists is absent. Read without locking the tables: the stream waits for
   * the answer, and a backfill copy waits for the stream.
   */
  PublishedSchema tables(Collection<Long> oids, long newerThan);

  /** The types of {@code oids} (pg_type), as the published schema names them; a missing OID is absent. */
  Map<Long, TypeName> types(Collection<Long> oids);

  /** The OID of schema (namespace) {@code name}, or -1 when there is none now. */
  long schemaOid(String name);

  /**
   * Asks for a catalog check soon, written even if the catalog looks unchanged: the tracker kept a
   * table the stream described after a check's snapshot, and only a later check settles it.
   */
  default void checkAgainSoon() {}

  /**
   * A column type as the published schema names it: {@code dataType} with domains resolved to
   * their base type and arrays as {@code elem[]}; {@code typeClass} the column type's own
   * {@code typtype}, {@code elemTypeClass} an array element's.
   */
  record TypeName(String dataType, String typeClass, String elemTypeClass) {}
}
