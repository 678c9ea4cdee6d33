package io.pg2lite.replica.apply;

import io.pg2lite.protocol.message.ChangeLogEntry;
import io.pg2lite.replica.Replica;
import io.pg2lite.replica.ReplicaException;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.ResultSetMetaData;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;

/**
 * A replica in a temp file with its applier, fed like the sink task feeds it (consecutive
 * offsets), and read back through a second, independent connection (as a reader would).
 */
public final class ReplicaHarness implements AutoCloseable {
  static final String TOPIC = "log";
  public static final String VERSION = "4e6720";

  final Path file;
  Replica replica;
  ReplicaApplier applier;
  long nextOffset;

  ReplicaHarness(Path dir) throws ReplicaException {
    this.file = dir.resolve("replica.db");
    open();
  }

  void open() throws ReplicaException {
    replica = Replica.open(file, "WAL", "NORMAL", 5000);
    applier = new ReplicaApplier(replica, 1000);
  }

  /** Applies entries at consecutive offsets, then flushes like the end of a put(). */
  ReplicaHarness feed(List<ChangeLogEntry> entries) {
    for (ChangeLogEntry e : entries) {
      applier.apply(e, VERSION, TOPIC, 0, nextOffset++);
    }
    applier.flush();
    return this;
  }

  /** Rows of {@code sql} as lists of column values, read through a separate connection. */
  List<List<Object>> query(String sql) throws SQLException {
    try (Connection c = DriverManager.getConnection("jdbc:sqlite:" + file); Statement s = c.createStatement();
        ResultSet rs = s.executeQuery(sql)) {
      ResultSetMetaData md = rs.getMetaData();
      List<List<Object>> out = new ArrayList<>();
      while (rs.next()) {
        List<Object> row = new ArrayList<>();
        for (int i = 1; i <= md.getColumnCount(); i++) {
          row.add(rs.getObject(i));
        }
        out.add(row);
      }
      return out;
    }
  }

  void reopen() throws ReplicaException {
    replica.close();
    open();
  }

  @Override
  public void close() throws ReplicaException {
    replica.close();
  }
}
