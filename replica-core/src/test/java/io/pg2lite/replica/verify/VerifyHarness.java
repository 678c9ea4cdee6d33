package io.pg2lite.replica.verify;

import static org.junit.jupiter.api.Assertions.assertNotNull;

import io.pg2lite.protocol.message.ChangeLogEntry;
import io.pg2lite.replica.Replica;
import io.pg2lite.replica.ReplicaException;
import io.pg2lite.replica.apply.ReplicaApplier;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.ResultSetMetaData;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

/**
 * A replica in a temp file applied through the real applier, whose verification outcomes land in
 * a queue; read and changed by hand through separate connections (as a reader, or an intruder,
 * would).
 */
final class VerifyHarness implements AutoCloseable {
  final Path file;
  final BlockingQueue<VerifyOutcome> outcomes = new LinkedBlockingQueue<>();
  private final String journalMode;
  Replica replica;
  ReplicaApplier applier;
  private long nextOffset;

  VerifyHarness(Path dir, String journalMode) throws ReplicaException {
    this.file = dir.resolve("replica.db");
    this.journalMode = journalMode;
    open();
  }

  void open() throws ReplicaException {
    replica = Replica.open(file, journalMode, "NORMAL", 5000, outcomes::add);
    applier = new ReplicaApplier(replica, 1000);
  }

  /** Applies entries at consecutive offsets, then flushes like the end of a batch. */
  VerifyHarness feed(List<ChangeLogEntry> entries) {
    for (ChangeLogEntry e : entries) {
      applier.apply(e, "4e6720", "log", 0, nextOffset++);
    }
    applier.flush();
    return this;
  }

  /** The next outcome, waiting for the verifier's thread. */
  VerifyOutcome outcome() throws InterruptedException {
    VerifyOutcome o = outcomes.poll(30, TimeUnit.SECONDS);
    assertNotNull(o, "no verification outcome within 30 s");
    return o;
  }

  void execute(String sql) throws SQLException {
    try (Connection c = DriverManager.getConnection("jdbc:sqlite:" + file); Statement s = c.createStatement()) {
      s.execute(sql);
    }
  }

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
