package io.pg2lite.testkit.postgres;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.stream.Collectors;
import java.util.stream.Stream;

/**
 * A streaming physical standby of a dedicated {@link PostgresServer} (Postgres 17+), for failover
 * tests: a real {@code postgres} in recovery, fed by the primary's walsender over the physical
 * slot {@value #PHYSICAL_SLOT}, which the test can promote ({@link #promote()}).
 *
 * <p>The zonky binaries hold no {@code pg_basebackup}, so the standby is a cold copy: the primary
 * gets the physical slot first (so it keeps the WAL the standby will ask for), stops cleanly, its
 * data directory is copied, and it starts again; the copy starts with {@code standby.signal},
 * the primary's own settings ({@code postmaster.opts}) on a port of its own, and the standby
 * settings in its {@code postgresql.auto.conf}. Slots the copy carried are removed: a standby
 * synchronizes failover slots only into names it does not hold.
 *
 * <p>It starts as a plain streaming standby ({@code hot_standby_feedback = on}, a {@code dbname}
 * in its {@code primary_conninfo}), which copies no slot. {@link #startSyncingSlots()} completes
 * the setup a failover without a resync needs (docs/operations.md, "Primary failover"):
 * {@code sync_replication_slots = on} on the standby and its slot in the primary's
 * {@code synchronized_standby_slots}. Turned on by a reload once the test's slots exist, the
 * slot sync worker starts with its shortest nap (200 ms); started with the server it would have
 * found nothing to copy for a while and napped up to 30 s. And the primary's setting is made
 * after the copy, so the standby, once promoted, does not name a slot it does not have.
 */
public final class StandbyServer implements AutoCloseable {
  /** The primary's physical slot for this standby ({@code primary_slot_name}). */
  public static final String PHYSICAL_SLOT = "pg2lite_standby";

  private final PostgresServer primary;
  private final Path pgCtl;
  private final Path dataDirectory;
  private final Path log;
  private final int port;
  private volatile boolean running;

  private StandbyServer(PostgresServer primary, Path pgCtl, Path dataDirectory, Path log, int port) {
    this.primary = primary;
    this.pgCtl = pgCtl;
    this.dataDirectory = dataDirectory;
    this.log = log;
    this.port = port;
  }

  /** Makes and starts a standby of {@code primary} (dedicated, Postgres 17+); returns once it streams. */
  public static StandbyServer of(PostgresServer primary) throws IOException, SQLException {
    try (Connection c = primary.connect("postgres"); Statement s = c.createStatement()) {
      s.execute("SELECT pg_create_physical_replication_slot('" + PHYSICAL_SLOT + "', true)");
    }
    List<String> options = primary.startOptions();
    Path copy = Files.createTempDirectory("pg2lite-standby-");
    primary.stop();
    try {
      copyTree(primary.dataDirectory(), copy);
    } finally {
      primary.startAgain();
    }
    deleteTree(copy.resolve("pg_replslot"), false);
    Files.deleteIfExists(copy.resolve("postmaster.pid"));
    Files.deleteIfExists(copy.resolve("postmaster.opts"));
    Files.writeString(copy.resolve("standby.signal"), "");
    int port = freePort();
    String conninfo = "host=" + primary.host() + " port=" + primary.port() + " user=" + primary.user() + " password="
        + primary.password() + " dbname=postgres application_name=pg2lite_standby";
    Files.writeString(copy.resolve("postgresql.auto.conf"), "\nprimary_conninfo = '" + conninfo + "'\n"
        + "primary_slot_name = '" + PHYSICAL_SLOT + "'\nhot_standby_feedback = on\n", StandardOpenOption.APPEND);
    List<String> standbyOptions = new ArrayList<>(options);
    int p = standbyOptions.indexOf("-p");
    standbyOptions.set(p + 1, String.valueOf(port));
    Path log = Files.createTempFile("pg2lite-standby-" + port + "-", ".log");
    StandbyServer standby = new StandbyServer(primary, primary.pgCtlPath(), copy, log, port);
    try {
      PostgresServer.pgCtl(standby.pgCtl, copy, log, "start", "-o",
          standbyOptions.stream().map(o -> "\"" + o + "\"").collect(Collectors.joining(" ")));
      standby.running = true;
      standby.awaitStreaming(Duration.ofSeconds(30));
      return standby;
    } catch (IOException | SQLException | RuntimeException e) {
      standby.close();
      throw e;
    }
  }

  /**
   * {@code sync_replication_slots = on} on the standby, {@code synchronized_standby_slots} naming
   * its slot on the primary: from now on the standby copies failover slots, and the primary sends
   * a logical walsender's client no change the standby has not flushed.
   */
  public void startSyncingSlots() throws SQLException {
    try (Connection c = primary.connect("postgres"); Statement s = c.createStatement()) {
      s.execute("ALTER SYSTEM SET synchronized_standby_slots = '" + PHYSICAL_SLOT + "'");
      s.execute("SELECT pg_reload_conf()");
    }
    try (Connection c = connect("postgres"); Statement s = c.createStatement()) {
      s.execute("ALTER SYSTEM SET sync_replication_slots = on");
      s.execute("SELECT pg_reload_conf()");
    }
  }

  public String host() {
    return "localhost";
  }

  public int port() {
    return port;
  }

  /** The standby's server, as the superuser of the primary (copied with it). */
  public Connection connect(String database) throws SQLException {
    return DriverManager.getConnection("jdbc:postgresql://" + host() + ":" + port + "/" + database, primary.user(),
        primary.password());
  }

  /** Waits until the standby's WAL receiver streams from the primary. */
  private void awaitStreaming(Duration timeout) throws SQLException {
    awaitTrue("SELECT count(*) = 1 FROM pg_stat_wal_receiver WHERE status = 'streaming'", null, timeout,
        "the standby on port " + port + " streaming from the primary");
  }

  /**
   * Waits until the standby holds a synchronized, persistent copy of failover slot {@code slot}:
   * only then does a promotion carry the slot over. A copy starts temporary and becomes persistent
   * once the primary's slot has moved past the WAL the standby could reserve for it.
   */
  public void awaitSlotSynced(String slot, Duration timeout) throws SQLException {
    awaitTrue("SELECT count(*) = 1 FROM pg_replication_slots WHERE slot_name = ? AND synced AND NOT temporary "
        + "AND invalidation_reason IS NULL", slot, timeout, "slot " + slot + " synchronized to the standby");
  }

  /** Whether the standby holds slot {@code slot} at all. */
  public boolean hasSlot(String slot) throws SQLException {
    try (Connection c = connect("postgres");
        PreparedStatement ps = c.prepareStatement("SELECT count(*) FROM pg_replication_slots WHERE slot_name = ?")) {
      ps.setString(1, slot);
      try (ResultSet rs = ps.executeQuery()) {
        rs.next();
        return rs.getInt(1) == 1;
      }
    }
  }

  /** Waits until the standby has replayed everything the primary has written (the primary must be up). */
  public void awaitCaughtUp(Duration timeout) throws SQLException {
    String lsn;
    try (Connection c = primary.connect("postgres"); Statement s = c.createStatement();
        ResultSet rs = s.executeQuery("SELECT pg_current_wal_lsn()::text")) {
      rs.next();
      lsn = rs.getString(1);
    }
    awaitTrue("SELECT pg_last_wal_replay_lsn() >= ?::pg_lsn", lsn, timeout, "the standby replayed up to " + lsn);
  }

  /** {@code pg_promote()}: the standby ends recovery and becomes a primary on a new timeline. */
  public void promote() throws SQLException {
    try (Connection c = connect("postgres"); Statement s = c.createStatement();
        ResultSet rs = s.executeQuery("SELECT pg_promote(true, 60)")) {
      rs.next();
      if (!rs.getBoolean(1)) {
        throw new IllegalStateException("the standby on port " + port + " did not finish its promotion in 60 s");
      }
    }
  }

  private void awaitTrue(String sql, String parameter, Duration timeout, String what) throws SQLException {
    long deadline = System.nanoTime() + timeout.toNanos();
    while (true) {
      try (Connection c = connect("postgres"); PreparedStatement ps = c.prepareStatement(sql)) {
        if (parameter != null) {
          ps.setString(1, parameter);
        }
        try (ResultSet rs = ps.executeQuery()) {
          rs.next();
          if (rs.getBoolean(1)) {
            return;
          }
        }
      }
      if (System.nanoTime() - deadline > 0) {
        throw new IllegalStateException("timed out after " + timeout.toMillis() + " ms waiting for " + what + "; see "
            + log);
      }
      java.util.concurrent.locks.LockSupport.parkNanos(100_000_000L);
    }
  }

  /** Stops the standby (or the promoted server) at once and deletes its data directory and log. */
  @Override
  public void close() throws IOException {
    try {
      if (running) {
        running = false;
        PostgresServer.pgCtl(pgCtl, dataDirectory, log, "stop", "-m", "immediate");
      }
    } finally {
      deleteTree(dataDirectory, true);
      Files.deleteIfExists(log);
    }
  }

  private static int freePort() throws IOException {
    try (ServerSocket s = new ServerSocket(0)) {
      return s.getLocalPort();
    }
  }

  /** Copies {@code from} into the existing directory {@code to}, keeping permissions (Postgres checks them). */
  private static void copyTree(Path from, Path to) throws IOException {
    Files.setPosixFilePermissions(to, Files.getPosixFilePermissions(from));
    try (Stream<Path> paths = Files.walk(from)) {
      for (Path source : (Iterable<Path>) paths::iterator) {
        Path target = to.resolve(from.relativize(source).toString());
        if (Files.isDirectory(source, LinkOption.NOFOLLOW_LINKS)) {
          if (!Files.exists(target)) {
            Files.copy(source, target, StandardCopyOption.COPY_ATTRIBUTES);
          }
        } else {
          Files.copy(source, target, StandardCopyOption.COPY_ATTRIBUTES, LinkOption.NOFOLLOW_LINKS);
        }
      }
    }
  }

  /** Deletes what is inside {@code dir}, and {@code dir} itself when {@code self}. */
  private static void deleteTree(Path dir, boolean self) throws IOException {
    if (!Files.exists(dir)) {
      return;
    }
    try (Stream<Path> paths = Files.walk(dir)) {
      paths.sorted(Comparator.reverseOrder()).filter(p -> self || !p.equals(dir)).forEach(p -> {
        try {
          Files.delete(p);
        } catch (IOException e) {
          throw new UncheckedIOException(e);
        }
      });
    }
  }
}
