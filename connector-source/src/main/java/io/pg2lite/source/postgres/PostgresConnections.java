package io.pg2lite.source.postgres;

import io.pg2lite.backfill.postgres.PostgresConnector;
import io.pg2lite.source.config.ConfigProblem;
import io.pg2lite.source.config.ConfigProblemException;
import io.pg2lite.source.config.SourceConfig;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.util.HashMap;
import java.util.Map;
import java.util.Properties;

/**
 * How the source connects to Postgres: the one place that turns the config into connection
 * properties, for the JDBC connections it opens itself (start-up catalog work, validate()'s
 * checks, the slot-lag metric), for the backfill copies ({@link #backfillConnector}) and for
 * Debezium's replication and metadata connections ({@link #driverProperties}). So no connection
 * can differ from another in how it verifies the server or presents a client certificate.
 *
 * <p>Holds the task's {@link PostgresTls} files: open one per task (and per validate() call),
 * close it when the task stops.
 */
public final class PostgresConnections implements AutoCloseable {
  private final SourceConfig config;
  private final PostgresTls tls;

  private PostgresConnections(SourceConfig config, PostgresTls tls) {
    this.config = config;
    this.tls = tls;
  }

  /** Checks the TLS settings and writes their files. Throws {@link ConfigProblemException} naming a bad setting. */
  public static PostgresConnections open(SourceConfig config) {
    return new PostgresConnections(config, PostgresTls.open(config));
  }

  /**
   * pgjdbc properties besides the URL, user and password: the TLS ones ({@link PostgresTls}) and,
   * with a host list, those that pick the primary ({@link #PRIMARY_ONLY}). Debezium takes them as
   * {@code database.*}.
   */
  public Map<String, String> driverProperties() {
    if (!config.hosts.isList()) {
      return tls.driverProperties();
    }
    Map<String, String> p = new HashMap<>(tls.driverProperties());
    p.putAll(PRIMARY_ONLY);
    return p;
  }

  /**
   * With a host list, a connection goes only to the server that accepts writes: pgjdbc asks each
   * in order and skips a standby (still in recovery) and a server that is down. What it learnt of a
   * host it remembers for {@code hostRecheckSeconds}; 2 s instead of 10, so that a standby seen as
   * one just before its promotion is asked again within the reconnect backoff.
   */
  static final Map<String, String> PRIMARY_ONLY = Map.of("targetServerType", "primary", "hostRecheckSeconds", "2");

  /**
   * The server {@code c} is connected to, {@code host:port}: with a host list, the one of them
   * that answered. Null when pgjdbc does not tell.
   */
  public static String server(Connection c) {
    try {
      org.postgresql.util.HostSpec spec = c.unwrap(org.postgresql.core.BaseConnection.class).getQueryExecutor()
          .getHostSpec();
      return spec.getHost() + ":" + spec.getPort();
    } catch (SQLException | RuntimeException e) {
      return null;
    }
  }

  /** A connection with the source's credentials and TLS, plus {@code extra} pgjdbc properties (timeouts). */
  public Connection connect(Map<String, String> extra) throws SQLException {
    Properties p = new Properties();
    p.putAll(driverProperties());
    p.setProperty("user", config.user);
    p.setProperty("password", config.password.value());
    p.putAll(extra);
    try {
      return DriverManager.getConnection(config.jdbcUrl(), p);
    } catch (SQLException e) {
      ConfigProblemException tlsProblem = explained(e);
      if (tlsProblem != null) {
        throw tlsProblem;
      }
      throw e;
    }
  }

  /** Closes {@code c} (null: nothing), ignoring the failure of a broken connection to close. */
  public static void closeQuietly(Connection c) {
    if (c != null) {
      try {
        c.close();
      } catch (SQLException e) {
        // a broken connection fails to close; there is nothing left to release
      }
    }
  }

  public Connection connect() throws SQLException {
    return connect(Map.of());
  }

  /** How the backfill copies connect: the same URL, credentials and TLS. */
  public PostgresConnector backfillConnector() {
    return new PostgresConnector(config.jdbcUrl(), config.user, config.password.value(), driverProperties(),
        config.publication);
  }

  /**
   * {@code failure} as a permanent problem naming the TLS setting to change, or null when it is
   * no TLS failure. The original is kept as a suppressed exception, not as the cause: pgjdbc calls
   * it a connection failure, and a transient cause would make the whole failure transient
   * ({@link io.pg2lite.connect.failure.Failures}).
   */
  public ConfigProblemException explained(Throwable failure) {
    ConfigProblem problem = TlsFailures.explain(failure, config);
    if (problem == null) {
      return null;
    }
    ConfigProblemException e = new ConfigProblemException(problem);
    e.addSuppressed(failure);
    return e;
  }

  /** Deletes the TLS files. Connections already open keep working. */
  @Override
  public void close() {
    tls.close();
  }
}
