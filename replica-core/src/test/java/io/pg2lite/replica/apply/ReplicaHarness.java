package io.pg2lite.replica.apply;

import io.pg2lite.protocol.message.ChangeLogEntry;
import io.pg2lite.replica.Replica;
import io.pg2lite.replica.ReplicaException;
import io.pg2lite.replica.verify.VerifyListener;
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

  public final Path file;
  private final String journalMode;
  private final VerifyListener verify;
  public Replica replica;
  ReplicaApplier applier;
  long nextOffset;

  ReplicaHarness(Path dir) throws ReplicaException {
    this(dir, "WAL", VerifyListener.LOG);
  }

  /** A replica in {@code journalMode} whose verification outcomes go to {@code verify}. */
  public ReplicaHarness(Path dir, String journalMode, VerifyListener verify) throws ReplicaException {
    this.file = dir.resolve("replica.db");
    this.journalMode = journalMode;
    this.verify = verify;
    open();
  }

  /** Opens the replica (again, after {@code replica.close()}): what a restart does. */
  public void open() throws ReplicaException {
    replica = Replica.open(file, journalMode, "NORMAL", 5000, verify);
    applier = new ReplicaApplier(replica, 1000);
  }

  /** Applies entries at consecutive offsets, then flushes like the end of a put(). */
  public ReplicaHarness feed(List<ChangeLogEntry> entries) {
    for (ChangeLogEntry e : entries) {
      applier.apply(e, VERSION, TOPIC, 0, nextOffset++);
    }
    applier.flush();
    return this;
  }

  /** Runs {@code sql} through a separate connection: a change made by hand, behind the applier's back. */
  public void execute(String sql) throws SQLException {
    try (Connection c = DriverManager.getConnection("jdbc:sqlite:" + file); Statement s = c.createStatement()) {
      s.execute(sql);
    }
  }

  /** Rows of {@code sql} as lists of column values, read through a separate connection. */
  public List<List<Object>> query(String sql) throws SQLException {
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
