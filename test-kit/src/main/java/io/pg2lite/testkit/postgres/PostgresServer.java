package io.pg2lite.testkit.postgres;

import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import io.zonky.test.db.postgres.util.LinuxUtils;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;

/**
 * A real Postgres server for integration tests, in a child process of the test JVM, configured
 * for logical replication ({@code wal_level=logical}).
 *
 * <p>It listens on a random free port, and {@link #start()} checks {@code version()} after
 * start-up: a server started on a fixed port that was already taken "starts", then silently
 * talks to the stranger that holds the port. Each test gets its own database from
 * {@link #newDatabase(String)}; slots and publications live in that database and are dropped
 * with it, because an inactive slot would keep WAL forever.
 *
 * <p>Fault tests take a server of their own from {@link #startDedicated()}: only such a server can
 * be stopped, crashed or restarted ({@link #restartFast()}, {@link #killImmediate()},
 * {@link #stop()}, {@link #startAgain()}), so no test can pull the shared server of
 * {@code TestStack} from under the others. Every fault goes through the server's own
 * {@code pg_ctl}, on the same data directory and the same port, so what a client sees is what it
 * would see from a real server being restarted or crashing: its connections drop, the port
 * refuses connections while the server is down, and the server comes back with its data, its
 * configuration and its replication slots.
 */
public final class PostgresServer implements AutoCloseable {
  /** The major version the embedded binaries are pinned to in the parent pom. */
  public static final int EXPECTED_MAJOR_VERSION = 17;

  private static final Pattern QUOTED = Pattern.compile("\"([^\"]*)\"");

  private final EmbeddedPostgres postgres;
  private final String version;
  private final AtomicInteger databases = new AtomicInteger();
  /** Where {@code pg_ctl} and the data directory are; null unless the server is dedicated. */
  private final Faults faults;
  private volatile boolean running = true;

  private PostgresServer(EmbeddedPostgres postgres, String version, Faults faults) {
    this.postgres = postgres;
    this.version = version;
    this.faults = faults;
  }

  /** What stopping and starting a dedicated server needs: the binaries, the data directory, a log. */
  private record Faults(Path pgCtl, Path dataDirectory, Path log) {}

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
    return start(major, false);
  }

  /**
   * Starts a server (version {@value #EXPECTED_MAJOR_VERSION}) that belongs to the calling test
   * alone, so the test may stop, crash and restart it; the caller closes it. It costs a server
   * start (3.5–5.5 s), which is why only fault tests should take one.
   */
  public static PostgresServer startDedicated() throws IOException, SQLException {
    return start(EXPECTED_MAJOR_VERSION, true);
  }

  /**
   * Starts a server of the calling test's own (it closes it) with TLS on ({@code ssl = on}):
   * {@code certificate} and {@code key} are the server's, {@code caCertificate} what it verifies
   * client certificates against. Its pg_hba.conf is {@code hbaRules} (e.g.
   * {@code hostssl all alice all cert}) before the embedded server's defaults, which trust every
   * connection, with or without TLS, so the superuser still connects as in other tests.
   */
  public static PostgresServer startWithTls(Path certificate, Path key, Path caCertificate, List<String> hbaRules)
      throws IOException, SQLException {
    Path hba = certificate.resolveSibling("pg_hba.conf");
    List<String> lines = new ArrayList<>(hbaRules);
    lines.addAll(List.of("local all all trust", "host all all 127.0.0.1/32 trust", "host all all ::1/128 trust",
        "local replication all trust", "host replication all 127.0.0.1/32 trust",
        "host replication all ::1/128 trust"));
    Files.write(hba, lines);
    return start(EXPECTED_MAJOR_VERSION, false, Map.of("ssl", "on", "ssl_cert_file", certificate.toString(),
        "ssl_key_file", key.toString(), "ssl_ca_file", caCertificate.toString(), "hba_file", hba.toString()));
  }

  private static PostgresServer start(int major, boolean dedicated) throws IOException, SQLException {
    return start(major, dedicated, Map.of());
  }

  /**
   * How often a start is tried when the port it chose answers with another server: zonky picks a
   * free port, then starts the server on it, and another process (a second suite on the same
   * machine) may take the port in between; our server then fails to bind and the check below
   * meets the other one. A new attempt picks a new port.
   */
  private static final int PORT_ATTEMPTS = 3;

  private static PostgresServer start(int major, boolean dedicated, Map<String, String> settings)
      throws IOException, SQLException {
    for (int attempt = 1; ; attempt++) {
      try {
        return startOnce(major, dedicated, settings);
      } catch (PortTaken e) {
        if (attempt == PORT_ATTEMPTS) {
          throw e;
        }
        System.out.println("pg2lite test stack: " + e.getMessage() + "; starting again on another port");
      }
    }
  }

  /** The port the embedded server was started on answers with another server. */
  private static final class PortTaken extends IllegalStateException {
    private static final long serialVersionUID = 1L;

    PortTaken(String message) {
      super(message);
    }
  }

  private static PostgresServer startOnce(int major, boolean dedicated, Map<String, String> settings)
      throws IOException, SQLException {
    EmbeddedPostgres.Builder builder = EmbeddedPostgres.builder();
    if (major != EXPECTED_MAJOR_VERSION) {
      builder.setPgBinaryResolver(PostgresBinaries.forMajor(major));
    }
    settings.forEach(builder::setServerConfig);
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
        throw new PortTaken("port " + pg.getPort() + " answers with " + version + ", wal_level="
            + walLevel + ": not the server just started (expected PostgreSQL " + major
            + " with wal_level=logical)");
      }
      Faults faults = null;
      if (dedicated) {
        // The server tells where it runs from: pg_config's BINDIR is derived from the path of the
        // running executable, so it names the directory zonky extracted the binaries to.
        Path pgCtl = Path.of(query(pg, "SELECT setting FROM pg_config WHERE name = 'BINDIR'"), "pg_ctl");
        Path dataDirectory = Path.of(query(pg, "SHOW data_directory"));
        if (!Files.isExecutable(pgCtl)) {
          throw new IllegalStateException("no executable pg_ctl at " + pgCtl);
        }
        faults = new Faults(pgCtl, dataDirectory, Files.createTempFile("pg2lite-postgres-" + pg.getPort() + "-", ".log"));
      }
      return new PostgresServer(pg, version, faults);
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

  /**
   * {@code pg_ctl restart -m fast}: every open connection (replication connections included) is
   * dropped at once, open transactions roll back, a shutdown checkpoint is written, and the same
   * server starts again with the command line it last started with (same port, same data
   * directory, same settings, {@code wal_level=logical}). Slots survive because they are stored in
   * the data directory. Returns once the server accepts connections and is checked to be this
   * one, so a test can go straight on.
   */
  public void restartFast() throws IOException, SQLException {
    Faults f = requireDedicated();
    pgCtl(f, "restart", "-m", "fast");
    running = true;
    checkUp(f);
  }

  /**
   * {@code pg_ctl stop -m immediate}: the postmaster and its backends quit without a checkpoint,
   * as if the machine had lost power (except that fsync-less writes already handed to the OS are
   * kept). The next {@link #startAgain()} therefore runs crash recovery from the last checkpoint,
   * which is what a connector must survive: a slot's confirmed position may be older than what it
   * last confirmed. Returns once nothing accepts connections on the port.
   */
  public void killImmediate() throws IOException, SQLException {
    Faults f = requireDedicated();
    pgCtl(f, "stop", "-m", "immediate");
    running = false;
    checkDown();
  }

  /**
   * {@code pg_ctl stop -m fast}: a clean shutdown (connections dropped, shutdown checkpoint). The
   * server stays down, and the port refuses connections, until {@link #startAgain()}; a test may
   * keep it down as long as it likes, for example while a connector starts. Returns once nothing
   * accepts connections on the port.
   */
  public void stop() throws IOException, SQLException {
    Faults f = requireDedicated();
    pgCtl(f, "stop", "-m", "fast");
    running = false;
    checkDown();
  }

  /**
   * Starts a server stopped by {@link #stop()} or {@link #killImmediate()} again on the same port
   * and data directory, with the options it ran with before (read back from
   * {@code postmaster.opts}, the file {@code pg_ctl restart} uses). After a crash this includes
   * crash recovery. Returns once the server accepts connections and reports this data directory:
   * another process could have taken the port while it was down, and connecting to that one must
   * fail here rather than mislead the test.
   */
  public void startAgain() throws IOException, SQLException {
    Faults f = requireDedicated();
    if (running) {
      throw new IllegalStateException("the server on port " + port() + " is running; stop it first");
    }
    List<String> options = previousOptions(f);
    pgCtl(f, "start", "-o", options.stream().map(o -> "\"" + o + "\"").collect(Collectors.joining(" ")));
    running = true;
    checkUp(f);
  }

  /** False between {@link #stop()} or {@link #killImmediate()} and {@link #startAgain()}. */
  public boolean isRunning() {
    return running;
  }

  /** A dedicated server's {@code pg_ctl}. */
  Path pgCtlPath() {
    return requireDedicated().pgCtl();
  }

  /** A dedicated server's data directory. */
  Path dataDirectory() {
    return requireDedicated().dataDirectory();
  }

  /** The options a dedicated server was last started with (port, settings), without {@code -D}. */
  List<String> startOptions() throws IOException {
    return previousOptions(requireDedicated());
  }

  private Faults requireDedicated() {
    if (faults == null) {
      throw new IllegalStateException("only a server from PostgresServer.startDedicated() can be stopped or restarted:"
          + " this one may be shared with other tests");
    }
    return faults;
  }

  /** The postmaster's last command line minus the executable and {@code -D} (pg_ctl adds it). */
  private static List<String> previousOptions(Faults f) throws IOException {
    String opts = Files.readString(f.dataDirectory().resolve("postmaster.opts")).trim();
    List<String> args = new ArrayList<>();
    Matcher m = QUOTED.matcher(opts);
    while (m.find()) {
      args.add(m.group(1));
    }
    List<String> options = new ArrayList<>();
    for (int i = 0; i < args.size(); i++) {
      if ("-D".equals(args.get(i))) {
        i++;
      } else {
        options.add(args.get(i));
      }
    }
    if (!options.contains("-p")) {
      throw new IllegalStateException("postmaster.opts has no -p (port): " + opts);
    }
    return options;
  }

  /**
   * Runs {@code pg_ctl <args> -D <data> -w}. As root it runs under {@code unshare -U} exactly when
   * zonky does (Postgres refuses to run as root, and pg_ctl must signal the postmaster zonky
   * started that way). Output goes to a log file, not a pipe: a postmaster started by pg_ctl
   * inherits its output and outlives it, and a pipe nobody drains would block it.
   */
  private void pgCtl(Faults f, String... args) throws IOException {
    pgCtl(f.pgCtl(), f.dataDirectory(), f.log(), args);
  }

  /** As {@link #pgCtl(Faults, String...)} on any data directory (a {@link StandbyServer}'s). */
  static void pgCtl(Path pgCtl, Path dataDirectory, Path log, String... args) throws IOException {
    Faults f = new Faults(pgCtl, dataDirectory, log);
    List<String> cmd = new ArrayList<>();
    if (LinuxUtils.isUnshareAvailable()) {
      cmd.addAll(List.of("unshare", "-U"));
    }
    cmd.add(f.pgCtl().toString());
    cmd.addAll(List.of(args));
    cmd.addAll(List.of("-D", f.dataDirectory().toString(), "-w", "-t", "60"));
    Process p = new ProcessBuilder(cmd).redirectErrorStream(true)
        .redirectOutput(ProcessBuilder.Redirect.appendTo(f.log().toFile())).start();
    try {
      if (!p.waitFor(90, TimeUnit.SECONDS)) {
        p.destroyForcibly();
        throw new IOException("pg_ctl " + String.join(" ", args) + " did not finish in 90 s; see " + f.log());
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IOException("interrupted waiting for pg_ctl", e);
    }
    if (p.exitValue() != 0) {
      throw new IOException("pg_ctl " + args[0] + " exited with " + p.exitValue() + ": " + tail(f.log()));
    }
  }

  private static String tail(Path log) throws IOException {
    List<String> lines = Files.readAllLines(log);
    return String.join("\n", lines.subList(Math.max(0, lines.size() - 15), lines.size()));
  }

  /** Fails unless the server on the port is this one, up, with logical replication. */
  private void checkUp(Faults f) throws SQLException {
    try (Connection c = connect("postgres"); Statement s = c.createStatement();
        ResultSet rs = s.executeQuery("SELECT current_setting('data_directory'), current_setting('wal_level')")) {
      rs.next();
      if (!f.dataDirectory().toString().equals(rs.getString(1)) || !"logical".equals(rs.getString(2))) {
        throw new IllegalStateException("port " + port() + " answers with data directory " + rs.getString(1)
            + ", wal_level=" + rs.getString(2) + ": not this server (" + f.dataDirectory() + ")");
      }
    }
  }

  /** pg_ctl -w has waited for the postmaster to exit; this checks that the port refuses connections. */
  private void checkDown() {
    Properties props = new Properties();
    props.setProperty("user", user());
    props.setProperty("password", password());
    props.setProperty("connectTimeout", "2");
    try (Connection c = DriverManager.getConnection(jdbcUrl("postgres"), props)) {
      throw new IllegalStateException("the server on port " + port() + " still accepts connections after pg_ctl stop");
    } catch (SQLException expected) {
      // refused: down
    }
  }

  /**
   * Stops the server and deletes its data directory. A dedicated server a test left stopped is
   * already down; zonky then logs that it could not stop it, and still deletes the directory.
   */
  @Override
  public void close() throws IOException {
    postgres.close();
    if (faults != null) {
      Files.deleteIfExists(faults.log());
    }
  }
}
