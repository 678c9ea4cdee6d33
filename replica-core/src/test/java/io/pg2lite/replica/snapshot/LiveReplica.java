package io.pg2lite.replica.snapshot;

import io.pg2lite.protocol.message.ChangeLogEntry;
import io.pg2lite.protocol.testing.ChangeMessages;
import io.pg2lite.protocol.message.SchemaChange;
import io.pg2lite.protocol.schema.ColumnSpec;
import io.pg2lite.protocol.schema.Relation;
import io.pg2lite.protocol.schema.RowKey;
import io.pg2lite.protocol.schema.TableMetadata;
import io.pg2lite.protocol.schema.TableSpec;
import io.pg2lite.protocol.value.Row;
import io.pg2lite.protocol.value.Value;
import io.pg2lite.replica.apply.ReplicaApplier;
import io.pg2lite.replica.Replica;
import io.pg2lite.replica.ReplicaException;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * A real replica file written by the sink's own applier, the way the task writes it: one table
 * {@code t(id int8 pk, v text)}, one upstream transaction per {@link #commitRows}, each commit
 * record at the next offset of topic {@code log}.
 */
final class LiveReplica implements AutoCloseable {
  static final String TOPIC = "log";
  static final String VERSION = "4e6720";
  private static final Relation T = new Relation("public", "t", RowKey.of("id"));

  final Path file;
  private final Replica replica;
  private final ReplicaApplier applier;
  private long nextOffset;
  private long lsn = 0x100;
  private long nextId = 1;

  LiveReplica(Path file) throws ReplicaException {
    this.file = file;
    replica = Replica.open(file, "WAL", "NORMAL", 5000);
    applier = new ReplicaApplier(replica, 1000);
    Map<String, ColumnSpec> cols = new LinkedHashMap<>();
    cols.put("id", ColumnSpec.of(1, "int8"));
    cols.put("v", ColumnSpec.of(2, "text"));
    feed(ChangeMessages.after(lsn()).begin(1).change(new SchemaChange.CreateTable(new TableSpec("public", "t", cols,
        List.of("id")), new TableMetadata(2200, 1, Map.of("id", 1)), null)).commit(nextLsn()).entries());
  }

  private String lsn() {
    return "0/" + Long.toHexString(lsn);
  }

  private String nextLsn() {
    lsn += 0x100;
    return lsn();
  }

  /** One upstream transaction inserting {@code rows} rows; returns the offset of its commit record. */
  long commitRows(int rows) {
    ChangeMessages m = ChangeMessages.after(lsn()).begin(nextId);
    for (int i = 0; i < rows; i++) {
      long id = nextId++;
      m.insert(T, Row.of("id", Value.of(id), "v", Value.of("row " + id)));
    }
    feed(m.commit(nextLsn()).entries());
    return nextOffset - 1;
  }

  private void feed(List<ChangeLogEntry> entries) {
    for (ChangeLogEntry e : entries) {
      applier.apply(e, VERSION, TOPIC, 0, nextOffset++);
    }
    applier.flush();
  }

  long rowCount() throws SQLException {
    return rows(file).size();
  }

  /** The rows of {@code t} in {@code file}, read through a connection of its own. */
  static List<String> rows(Path file) throws SQLException {
    try (Connection c = DriverManager.getConnection("jdbc:sqlite:" + file); Statement s = c.createStatement();
        ResultSet rs = s.executeQuery("SELECT id, v FROM t ORDER BY id")) {
      List<String> out = new ArrayList<>();
      while (rs.next()) {
        out.add(rs.getLong(1) + "=" + rs.getString(2));
      }
      return out;
    }
  }

  @Override
  public void close() throws ReplicaException {
    replica.close();
  }
}
