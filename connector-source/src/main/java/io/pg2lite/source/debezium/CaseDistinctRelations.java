package io.pg2lite.source.debezium;

import io.debezium.connector.postgresql.TypeRegistry;
import io.debezium.connector.postgresql.connection.Lsn;
import io.debezium.connector.postgresql.connection.MessageDecoder;
import io.debezium.connector.postgresql.connection.ReplicationConnection;
import io.debezium.connector.postgresql.connection.ReplicationStream;
import io.debezium.connector.postgresql.connection.WalPositionLocator;
import java.io.ByteArrayOutputStream;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.sql.SQLException;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Function;
import org.postgresql.replication.fluent.logical.ChainedLogicalStreamBuilder;

/**
 * Lets Debezium's pgoutput decoder read a table whose column names differ only in case
 * ({@code "Name"} and {@code name}): valid in Postgres, but the decoder refuses the table's
 * Relation message ("columns that differ only by case") and the source stopped for good (issue 33).
 *
 * <p>Wraps the decoder: a Relation message is rewritten before the decoder reads it, each column
 * whose name lower-cases (as the decoder does, {@link String#toLowerCase()}) like an earlier
 * column's is renamed to a name no other column of the table has ({@code name}, U+FFFF, its
 * position). The renames are remembered per table, and {@link #upstreamName} gives the real name
 * back where the source builds rows (TableConverters, the row key): only names this class made
 * are mapped, so a real column name is never changed. Which of the colliding columns reaches the
 * replica is then decided by the source's name admission (one replica column per SQLite name).
 *
 * <p>Installed by reflection into Debezium's replication connection (its decoder field), like
 * {@code PgOutputText}'s reading: the Debezium version is pinned and {@code CaseDistinctRelationsTest}
 * fails the build when the field moves.
 */
final class CaseDistinctRelations implements MessageDecoder {
  private static final char MARK = '\uFFFF';
  private static final String FIELD = "messageDecoder";

  private final MessageDecoder decoder;
  private final RelationMessages relations = new RelationMessages();
  /** Per table ({@code schema.name} as the Relation message names it): decoder name to upstream name. */
  private final Map<String, Map<String, String>> renamed = new ConcurrentHashMap<>();

  private CaseDistinctRelations(MessageDecoder decoder) {
    this.decoder = decoder;
  }

  /**
   * Wraps the decoder of {@code replication}, a Debezium {@code PostgresReplicationConnection};
   * returns the wrapper, whose {@link #upstreamName} the session's mapper asks.
   */
  static CaseDistinctRelations install(ReplicationConnection replication) {
    try {
      java.lang.reflect.Field f = replication.getClass().getDeclaredField(FIELD);
      f.setAccessible(true);
      MessageDecoder current = (MessageDecoder) f.get(replication);
      if (current instanceof CaseDistinctRelations installed) {
        return installed;
      }
      CaseDistinctRelations wrapper = new CaseDistinctRelations(current);
      f.set(replication, wrapper);
      return wrapper;
    } catch (ReflectiveOperationException | RuntimeException e) {
      throw new org.apache.kafka.connect.errors.ConnectException("the Debezium on this worker has no "
          + replication.getClass().getName() + "." + FIELD + ", which pg2lite wraps to read tables whose column "
          + "names differ only in case: install the plugin archive with the Debezium it was built with", e);
    }
  }

  /** The Relation messages this wrapper has seen, with their names as Postgres sent them. */
  RelationMessages relations() {
    return relations;
  }

  /** The upstream name of a column of table {@code schema.name} as the decoder names it. */
  String upstreamName(String schema, String table, String decoderName) {
    Map<String, String> names = renamed.get(schema + "." + table);
    return names == null ? decoderName : names.getOrDefault(decoderName, decoderName);
  }

  @Override
  public void processMessage(ByteBuffer buffer, ReplicationStream.ReplicationMessageProcessor processor,
      TypeRegistry typeRegistry) throws SQLException, InterruptedException {
    boolean relation = buffer.remaining() > 0 && buffer.get(buffer.position()) == 'R';
    if (relation) {
      relations.received(buffer);
    }
    ByteBuffer read = relation ? caseDistinct(buffer, renamed) : buffer;
    decoder.processMessage(read, processor, typeRegistry);
  }

  /**
   * A Relation message (pgoutput protocol 1: 'R', relation OID, namespace, name, replica
   * identity, column count, then per column flags, name, type OID, type modifier) with colliding
   * column names made distinct, the renames recorded in {@code renamed} (the table's entry
   * replaced: a new Relation message replaces the table's columns); the buffer itself when none
   * collide.
   */
  static ByteBuffer caseDistinct(ByteBuffer message, Map<String, Map<String, String>> renamed) {
    ByteBuffer in = message.duplicate();
    int start = in.position();
    in.get(); // 'R'
    in.getInt();
    String table = cString(in) + "." + cString(in);
    in.get();
    int columns = in.getShort();
    int namesStart = in.position();
    Set<String> seen = new HashSet<>();
    Set<String> all = new HashSet<>();
    boolean collides = false;
    for (int i = 0; i < columns; i++) {
      in.get();
      String name = cString(in);
      all.add(name);
      collides |= !seen.add(name.toLowerCase());
      in.getInt();
      in.getInt();
    }
    if (!collides) {
      renamed.remove(table);
      return message;
    }
    Map<String, String> names = new HashMap<>();
    ByteArrayOutputStream out = new ByteArrayOutputStream(message.remaining() + 16 * columns);
    byte[] head = new byte[namesStart - start];
    message.duplicate().get(head);
    out.writeBytes(head);
    in.position(namesStart);
    seen.clear();
    for (int i = 0; i < columns; i++) {
      out.write(in.get());
      String name = cString(in);
      String written = name;
      if (!seen.add(name.toLowerCase())) {
        written = name + MARK + (i + 1);
        while (all.contains(written) || !seen.add(written.toLowerCase())) {
          written += MARK;
        }
        all.add(written);
        names.put(written, name);
      }
      out.writeBytes(written.getBytes(StandardCharsets.UTF_8));
      out.write(0);
      byte[] types = new byte[8];
      in.get(types);
      out.writeBytes(types);
    }
    byte[] rest = new byte[in.remaining()];
    in.get(rest);
    out.writeBytes(rest);
    renamed.put(table, Map.copyOf(names));
    return ByteBuffer.wrap(out.toByteArray());
  }

  private static String cString(ByteBuffer in) {
    return RelationMessages.cString(in);
  }

  @Override
  public ChainedLogicalStreamBuilder defaultOptions(ChainedLogicalStreamBuilder builder,
      Function<Integer, Boolean> hasMinimumVersion) {
    return decoder.defaultOptions(builder, hasMinimumVersion);
  }

  @Override
  public boolean shouldMessageBeSkipped(ByteBuffer buffer, Lsn lastReceivedLsn, Lsn startLsn,
      WalPositionLocator walPosition) {
    return decoder.shouldMessageBeSkipped(buffer, lastReceivedLsn, startLsn, walPosition);
  }

  @Override
  public void close() {
    decoder.close();
  }
}
