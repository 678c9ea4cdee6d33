package io.pg2lite.backfill.postgres;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.util.Map;
import java.util.Properties;

/**
 * How copies connect to Postgres: the source's JDBC URL, credentials and other driver properties
 * (TLS: {@code sslmode}, {@code sslrootcert}, ...), and the publication whose row filters a copy
 * applies.
 */
public record PostgresConnector(String jdbcUrl, String user, String password, Map<String, String> driverProperties,
    String publication) {
  public PostgresConnector {
    driverProperties = Map.copyOf(driverProperties);
  }

  public PostgresConnector(String jdbcUrl, String user, String password, String publication) {
    this(jdbcUrl, user, password, Map.of(), publication);
  }

  Connection connect() throws SQLException {
    return DriverManager.getConnection(jdbcUrl, properties());
  }

  /** A walsender connection (replication commands only) in simple query mode, as they require. */
  Connection connectForReplication() throws SQLException {
    Properties p = properties();
    p.setProperty("replication", "database");
    p.setProperty("preferQueryMode", "simple");
    p.setProperty("assumeMinServerVersion", "10");
    return DriverManager.getConnection(jdbcUrl, p);
  }

  private Properties properties() {
    Properties p = new Properties();
    p.putAll(driverProperties);
    p.setProperty("user", user);
    if (password != null) {
      p.setProperty("password", password);
    }
    p.setProperty("ApplicationName", "pg2lite-backfill");
    return p;
  }

  /** Without the driver properties: they may hold a key's password. */
  @Override
  public String toString() {
    return "PostgresConnector[" + jdbcUrl + ", user " + user + ", publication " + publication + "]";
  }
}
