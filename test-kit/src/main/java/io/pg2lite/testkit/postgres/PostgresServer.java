package io.pg2lite.testkit.postgres;

import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import java.io.IOException;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A real Postgres server for integration tests, in a child process of the test JVM, configured
 * for logical replication ({@code wal_level=logical}).
 *
 * <p>It listens on a random free port, and {@link #start()} checks {@code version()} after
 * start-up: a server started on a fixed port that was already taken "starts", then silently
 * talks to the stranger that holds the port. Each test gets its own database from
 * {@link #newDatabase(String)}; slots and publications live in that database and are dropped
 * with it, because an inactive slot would keep WAL forever.
 */
public final class PostgresServer implements AutoCloseable {
  /** The major version the embedded binaries are pinned to in the parent pom. */
  public static final int EXPECTED_MAJOR_VERSION = 17;

  private final EmbeddedPostgres postgres;
  private final String version;
  private final AtomicInteger databases = new AtomicInteger();

  private PostgresServer(EmbeddedPostgres postgres, String version) {
    this.postgres = postgres;
    this.version = version;
  }

  /** Starts a server with logical replication enabled and verifies it is the one we started. */
  public static PostgresServer start() throws IOException, SQLException {
    return start(EXPECTED_MAJOR_VERSION);
  }

  /**
   * Starts a server of major version {@code major}: {@value #EXPECTED_MAJOR_VERSION} from the
   * classpath binaries, any other from a binaries jar the build copied as a file
   * ({@link PostgresBinaries}).
   */
  public static PostgresServer start(int major) throws IOException, SQLException {
    EmbeddedPostgres.Builder builder = EmbeddedPostgres.builder();
    if (major != EXPECTED_MAJOR_VERSION) {
      builder.setPgBinaryResolver(PostgresBinaries.forMajor(major));
    }
    EmbeddedPostgres pg = builder
        .setServerConfig("wal_level", "logical")
        .setServerConfig("max_replication_slots", "40")
        .setServerConfig("max_wal_senders", "40")
        .setServerConfig("max_connections", "200")
        // fsync off: tests need no crash durability from the OS. synchronous_commit must be on
        // (zonky's default is off): logical decoding only reads flushed WAL, so with it off a
        // commit reaches the slot only when the WAL writer next runs, up to 200 ms later.
        .setServerConfig("fsync", "off")
        .setServerConfig("synchronous_commit", "on")
        .setServerConfig("full_page_writes", "off")
        .start();
    try {
      String version = query(pg, "SELECT version()");
      String walLevel = query(pg, "SHOW wal_level");
      if (!version.startsWith("PostgreSQL " + major + ".") || !"logical".equals(walLevel)) {
        throw new IllegalStateException("port " + pg.getPort() + " answers with " + version + ", wal_level="
            + walLevel + ": not the server just started (expected PostgreSQL " + major
            + " with wal_level=logical)");
      }
      return new PostgresServer(pg, version);
    } catch (SQLException | RuntimeException e) {
      pg.close();
      throw e;
    }
  }

  private static String query(EmbeddedPostgres pg, String sql) throws SQLException {
    try (Connection c = pg.getPostgresDatabase().getConnection();
        Statement s = c.createStatement();
        ResultSet rs = s.executeQuery(sql)) {
      rs.next();
      return rs.getString(1);
    }
  }

  public String host() {
    return "localhost";
  }

  public int port() {
    return postgres.getPort();
  }

  /** The superuser the embedded server was initialised with. */
  public String user() {
    return "postgres";
  }

  public String password() {
    return "postgres";
  }

  /** The server's major version (15, 17, ...). */
  public int majorVersion() {
    return Integer.parseInt(version.substring("PostgreSQL ".length()).split("[.\\s]")[0]);
  }

  /** The server's {@code version()} string. */
  public String version() {
    return version;
  }

  public String jdbcUrl(String database) {
    return "jdbc:postgresql://" + host() + ":" + port() + "/" + database;
  }

  /** A connection to {@code database} as the superuser. */
  public Connection connect(String database) throws SQLException {
    return DriverManager.getConnection(jdbcUrl(database), user(), password());
  }

  /**
   * Creates an empty database for one test, named {@code <prefix>_<n>}. Close it to drop it with
   * its replication slots.
   */
  public TestDatabase newDatabase(String prefix) throws SQLException {
    String name = (prefix.replaceAll("[^a-z0-9_]", "_") + "_" + databases.incrementAndGet()).toLowerCase();
    try (Connection c = connect("postgres"); Statement s = c.createStatement()) {
      s.execute("CREATE DATABASE " + name);
    }
    return new TestDatabase(this, name);
  }

  @Override
  public void close() throws IOException {
    postgres.close();
  }
}
