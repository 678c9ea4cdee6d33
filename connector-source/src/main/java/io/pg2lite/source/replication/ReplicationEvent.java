package io.pg2lite.source.replication;

import io.pg2lite.protocol.schema.QualifiedName;
import io.pg2lite.protocol.value.Row;
import io.pg2lite.protocol.watermark.Lsn;
import java.time.Instant;
import java.util.List;
import java.util.Map;

/**
 * One event of the upstream replication stream, free of Debezium types.
 *
 * <p>Events arrive in WAL order of commits: all events of a transaction between its
 * {@link TxBegin} and {@link TxEnd}, transactions whole and in commit order (pgoutput protocol 1
 * does not stream in-progress transactions). {@code position} maps are opaque resume positions:
 * the source stores them in its offsets and hands them back on restart, never interprets them.
 */
public sealed interface ReplicationEvent {

  /** A transaction starts. {@code txId} correlates its events (the xid). */
  record TxBegin(long txId, Instant commitTime) implements ReplicationEvent {}

  /**
   * A transaction committed at {@code commitLsn}; {@code position} resumes after it.
   *
   * @param eventCount the number of events the transaction carried, as the upstream counted them
   */
  record TxEnd(long txId, Lsn commitLsn, long eventCount, Map<String, ?> position) implements ReplicationEvent {}

  /** The kind of a row change. */
  enum RowOp { INSERT, UPDATE, DELETE }

  /**
   * A row change. {@code before} is the old row image the upstream sent (the old key, the whole
   * old row under REPLICA IDENTITY FULL, or null); {@code after} is the new row (null for a delete).
   * Unchanged TOASTed columns are absent from {@code after}, never present with a placeholder.
   *
   * @param keyColumns the columns the upstream identifies the row by (primary key), in order
   */
  record RowChange(long txId, RowOp op, QualifiedName table, List<String> keyColumns, Row before, Row after)
      implements ReplicationEvent {}

  /**
   * pgoutput's description of a table (its Relation message), sent inside a transaction before the
   * table's first change on a connection and again after any change of its definition. It is
   * exact at its place in the stream (the decoder reads the catalog as of that WAL position),
   * unlike the catalog queried now, which may be many DDLs ahead of a lagging stream.
   *
   * @param oid the table's OID; a rename keeps it
   * @param replicaIdentity pg_class.relreplident: d, n, f or i
   * @param columns the published columns, in attnum order, dropped ones left out
   */
  record Relation(long txId, long oid, String schema, String name, char replicaIdentity,
      List<RelationColumn> columns) implements ReplicationEvent {
    public Relation {
      columns = List.copyOf(columns);
    }
  }

  /**
   * A column of a {@link Relation}: its type as an OID and modifier ({@code atttypid}, a domain's
   * own OID; {@code atttypmod}); {@code key} when it is part of the replica identity (every column
   * under REPLICA IDENTITY FULL).
   */
  record RelationColumn(String name, long typeOid, int typmod, boolean key) {}

  /** A TRUNCATE of one table (one event per table of a multi-table TRUNCATE). */
  record Truncate(long txId, QualifiedName table) implements ReplicationEvent {}

  /**
   * A logical decoding message ({@code pg_logical_emit_message}). Transactional ones arrive
   * between the begin and end of their transaction ({@code txId} set); others alone ({@code txId} null).
   */
  record Message(Long txId, String prefix, byte[] content) implements ReplicationEvent {}

  /** No change, but the stream has advanced to {@code position} (heartbeat). */
  record Heartbeat(Map<String, ?> position) implements ReplicationEvent {}

  /**
   * The stream broke (a transient fault: the connection dropped, Postgres restarted) and will
   * resume after the last complete transaction handed out: a transaction open now is cut and
   * arrives again whole. {@code reason} names the fault.
   */
  record Interrupted(String reason) implements ReplicationEvent {}
}
