package io.pg2lite.testkit.postgres;

import io.pg2lite.protocol.watermark.Lsn;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;

/**
 * One test's database on the shared {@link PostgresServer}. Closing it terminates the walsenders
 * still attached to its slots, drops the slots (an inactive slot retains WAL without bound) and
 * drops the database.
 */
public final class TestDatabase implements AutoCloseable {
  private final PostgresServer server;
  private final String name;

  TestDatabase(PostgresServer server, String name) {
    this.server = server;
    this.name = name;
  }

  public String name() {
    return name;
  }

  public PostgresServer server() {
    return server;
  }

  public String jdbcUrl() {
    return server.jdbcUrl(name);
  }

  public Connection connect() throws SQLException {
    return server.connect(name);
  }

  /** Runs each statement in its own transaction (autocommit). */
  public void execute(String... sql) throws SQLException {
    try (Connection c = connect(); Statement s = c.createStatement()) {
      for (String statement : sql) {
        s.execute(statement);
      }
    }
  }

  /** The first column of every row of {@code sql}, as text. */
  public List<String> queryColumn(String sql) throws SQLException {
    try (Connection c = connect(); Statement s = c.createStatement(); ResultSet rs = s.executeQuery(sql)) {
      List<String> out = new ArrayList<>();
      while (rs.next()) {
        out.add(rs.getString(1));
      }
      return out;
    }
  }

  /** Creates publication {@code publication} for the given tables ({@code FOR ALL TABLES} if none). */
  public void createPublication(String publication, String... tables) throws SQLException {
    String target = tables.length == 0 ? "FOR ALL TABLES" : "FOR TABLE " + String.join(", ", tables);
    execute("CREATE PUBLICATION " + publication + " " + target);
  }

  /** Creates a pgoutput logical slot; returns its consistent point. */
  public Lsn createLogicalSlot(String slot) throws SQLException {
    try (Connection c = connect();
        PreparedStatement ps = c.prepareStatement("SELECT lsn FROM pg_create_logical_replication_slot(?, 'pgoutput')")) {
      ps.setString(1, slot);
      try (ResultSet rs = ps.executeQuery()) {
        rs.next();
        return Lsn.parse(rs.getString(1));
      }
    }
  }

  /** Names of this database's replication slots. */
  public List<String> slots() throws SQLException {
    return queryColumn("SELECT slot_name FROM pg_replication_slots WHERE database = current_database() ORDER BY 1");
  }

  /** Drops {@code slot}, first terminating a walsender that still holds it. */
  public void dropSlot(String slot) throws SQLException {
    try (Connection c = connect()) {
      try (PreparedStatement ps = c.prepareStatement(
          "SELECT pg_terminate_backend(active_pid) FROM pg_replication_slots WHERE slot_name = ? AND active_pid IS NOT NULL")) {
        ps.setString(1, slot);
        ps.executeQuery().close();
      }
      // A terminated walsender releases its slot asynchronously: retry the drop briefly.
      SQLException last = null;
      for (int attempt = 0; attempt < 100; attempt++) {
        try (PreparedStatement ps = c.prepareStatement(
            "SELECT pg_drop_replication_slot(slot_name) FROM pg_replication_slots WHERE slot_name = ?")) {
          ps.setString(1, slot);
          ps.executeQuery().close();
          return;
        } catch (SQLException e) {
          if (!"55006".equals(e.getSQLState())) { // object_in_use: still active
            throw e;
          }
          last = e;
          java.util.concurrent.locks.LockSupport.parkNanos(20_000_000L);
        }
      }
      throw last;
    }
  }

  @Override
  public void close() throws SQLException {
    for (String slot : slots()) {
      dropSlot(slot);
    }
    try (Connection c = server.connect("postgres"); Statement s = c.createStatement()) {
      s.execute("DROP DATABASE IF EXISTS " + name + " WITH (FORCE)");
    }
  }
}
