package io.pg2lite.source.debezium;

import io.pg2lite.source.replication.ReplicationEvent;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;

/**
 * The Relation messages of one session, read as the decoder receives them and handed to the
 * session's reader in stream order ({@link #drain}).
 *
 * <p>Debezium's decoder turns a Relation message into its own table schema and tells nobody; the
 * source in replication-stream mode (ADR 0027) needs it as an event, at its place in the stream:
 * after the BEGIN of its transaction and before the change it describes. {@link CaseDistinctRelations}
 * sees every message before the decoder, so it passes each Relation message here first, with its
 * column names as Postgres sent them.
 */
final class RelationMessages {
  private final ArrayDeque<ReplicationEvent.Relation> pending = new ArrayDeque<>();

  /** Reads one Relation message ({@code 'R'} at the buffer's position); the buffer is not moved. */
  void received(ByteBuffer message) {
    pending.add(read(message, -1));
  }

  /** Moves the Relation messages received since the last call to {@code out}, as events of {@code txId}. */
  void drain(List<ReplicationEvent> out, long txId) {
    for (ReplicationEvent.Relation r; (r = pending.poll()) != null; ) {
      out.add(new ReplicationEvent.Relation(txId, r.oid(), r.schema(), r.name(), r.replicaIdentity(), r.columns()));
    }
  }

  /**
   * pgoutput protocol 1: 'R', relation OID (int32), namespace, relation name (C strings; an empty
   * namespace is pg_catalog), replica identity (byte), column count (int16), then per column: flags
   * (byte, 1 = part of the key), name (C string), type OID (int32), type modifier (int32).
   */
  static ReplicationEvent.Relation read(ByteBuffer message, long txId) {
    ByteBuffer in = message.duplicate();
    if (in.get() != 'R') {
      throw new IllegalArgumentException("not a Relation message");
    }
    long oid = Integer.toUnsignedLong(in.getInt());
    String schema = cString(in);
    String name = cString(in);
    char identity = (char) in.get();
    int count = in.getShort();
    List<ReplicationEvent.RelationColumn> columns = new ArrayList<>(count);
    for (int i = 0; i < count; i++) {
      boolean key = (in.get() & 1) != 0;
      String column = cString(in);
      long type = Integer.toUnsignedLong(in.getInt());
      int typmod = in.getInt();
      columns.add(new ReplicationEvent.RelationColumn(column, type, typmod, key));
    }
    return new ReplicationEvent.Relation(txId, oid, schema.isEmpty() ? "pg_catalog" : schema, name, identity,
        columns);
  }

  static String cString(ByteBuffer in) {
    int start = in.position();
    while (in.get() != 0) {
      // to the terminating NUL
    }
    byte[] bytes = new byte[in.position() - start - 1];
    in.duplicate().position(start).get(bytes);
    return new String(bytes, StandardCharsets.UTF_8);
  }
}
