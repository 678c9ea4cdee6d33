package io.pg2lite.source.postgres;

import io.pg2lite.protocol.watermark.Lsn;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Map;
import java.util.Set;
import java.util.regex.Pattern;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A logical replication slot just created, with a transaction that sees the database exactly at
 * the slot's consistent point: where its stream begins.
 *
 * <p>Why: a first start (or a new lineage) writes the published schema as the stream's starting
 * point, and the stream then reports every DDL after the consistent point. A schema read outside
 * that snapshot, even a few milliseconds later, may already hold a DDL the stream will report
 * too: the change would reach the replica twice ("duplicate column name"). So the slot is created
 * over a walsender connection with {@code EXPORT_SNAPSHOT} (SQL's
 * {@code pg_create_logical_replication_slot} exports none), and another connection imports the
 * snapshot in a REPEATABLE READ transaction before the walsender runs anything else (the
 * snapshot lives only until then). The walsender is closed at once: the slot is permanent and
 * outlives it.
 *
 * <p>What the snapshot does not cover: Postgres reads some catalogs through a fresh catalog
 * snapshot whatever the transaction's, notably a publication's membership
 * ({@code pg_get_publication_tables}). A table added to or removed from the publication in the
 * milliseconds between the consistent point and the read is therefore seen as after its DDL;
 * the tables and columns themselves ({@code pg_class}, {@code pg_attribute}, ...) are read as at the
 * consistent point.
 */
public final class CreatedSlot implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(CreatedSlot.class);
  /** Postgres' own rule for slot names; the name is written into a replication command. */
  private static final Pattern SLOT_NAME = Pattern.compile("[a-z0-9_]{1,63}");
  /** How pgjdbc opens a walsender connection: replication commands run in the simple protocol only. */
  static final Map<String, String> WALSENDER = Map.of("replication", "database", "preferQueryMode", "simple",
      "assumeMinServerVersion", "10");

  /** Opens connections with the source's credentials and TLS, plus the pgjdbc properties given. */
  @FunctionalInterface
  public interface Connections {
    Connection connect(Map<String, String> extra) throws SQLException;
  }

  private final Lsn consistentPoint;
  private final Connection snapshot;

  private CreatedSlot(Lsn consistentPoint, Connection snapshot) {
    this.consistentPoint = consistentPoint;
    this.snapshot = snapshot;
  }

  /** Creates pgoutput slot {@code slot}; the caller closes what it returns (the slot stays). */
  public static CreatedSlot create(Connections postgres, String slot) throws SQLException {
    return create(postgres, slot, false);
  }

  /**
   * Creates pgoutput slot {@code slot}, a failover slot when {@code failover} (Postgres 17+ only:
   * the option list form, which 15 and 16 also accept for the snapshot, but not FAILOVER); the
   * caller closes what it returns (the slot stays).
   */
  public static CreatedSlot create(Connections postgres, String slot, boolean failover) throws SQLException {
    if (failover) {
      try {
        return createOnce(postgres, slot, true);
      } catch (SQLException e) {
        if (!failoverRefused(e)) {
          throw e;
        }
        // A server that does not take the option (a fork, a managed service that restricts
        // failover slots): a slot without it works as before, only a failover would lose it.
        LOG.warn("Postgres refused to create replication slot {} as a failover slot ({}); it is created without "
            + "failover, so a primary failover will need a resync (docs/operations.md, \"Primary failover\"). "
            + "{}=false creates it so without this warning", slot, e.getMessage(), "slot.failover");
      }
    }
    return createOnce(postgres, slot, false);
  }

  /**
   * Whether {@code e} is a server's refusal of {@code FAILOVER} in {@code CREATE_REPLICATION_SLOT}:
   * a syntax error or an unsupported feature, or the internal error "unrecognized option:
   * failover" Postgres before 17 answers (an {@code elog}, SQLSTATE XX000, so the text decides).
   * Anything else (the slot exists, no privilege, too many slots) is the same failure without the
   * option, and is thrown as it is.
   */
  static boolean failoverRefused(SQLException e) {
    String state = e.getSQLState();
    String message = String.valueOf(e.getMessage()).toLowerCase(java.util.Locale.ROOT);
    return FAILOVER_REFUSED.contains(state) || "XX000".equals(state) && message.contains("failover");
  }

  private static final Set<String> FAILOVER_REFUSED = Set.of("42601", "0A000");

  private static CreatedSlot createOnce(Connections postgres, String slot, boolean failover) throws SQLException {
    requireSlotName(slot);
    String command = "CREATE_REPLICATION_SLOT " + slot + " LOGICAL pgoutput "
        + (failover ? "(SNAPSHOT 'export', FAILOVER true)" : "EXPORT_SNAPSHOT");
    Connection walsender = postgres.connect(WALSENDER);
    try {
      Lsn point;
      String name;
      try (Statement s = walsender.createStatement();
          ResultSet rs = s.executeQuery(command)) {
        rs.next();
        point = Lsn.parse(rs.getString("consistent_point"));
        name = rs.getString("snapshot_name");
      }
      Connection c = postgres.connect(Map.of());
      try {
        c.setAutoCommit(false);
        try (Statement s = c.createStatement()) {
          s.execute("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ, READ ONLY");
          s.execute("SET TRANSACTION SNAPSHOT '" + name.replace("'", "''") + "'");
        }
      } catch (SQLException | RuntimeException e) {
        PostgresConnections.closeQuietly(c);
        throw e;
      }
      PostgresConnections.closeQuietly(walsender);
      awaitReleased(c, slot);
      return new CreatedSlot(point, c);
    } finally {
      PostgresConnections.closeQuietly(walsender);
    }
  }

  /** Refuses what is not a slot name: the name is written into a replication command. */
  static void requireSlotName(String slot) {
    if (!SLOT_NAME.matcher(slot).matches()) {
      throw new IllegalArgumentException("not a replication slot name: " + slot);
    }
  }

  /** How long the walsender's exit is waited for before the stream is left to retry. */
  private static final long RELEASE_WAIT_MS = 10_000;

  /**
   * Waits until the walsender that created the slot has let go of it: its backend exits after the
   * connection closes, and until then the slot is active for its PID and a replication session
   * opened on it would fail. {@code pg_replication_slots} reads shared memory, not the snapshot.
   */
  private static void awaitReleased(Connection c, String slot) throws SQLException {
    long deadline = System.nanoTime() + RELEASE_WAIT_MS * 1_000_000;
    try (java.sql.PreparedStatement ps = c.prepareStatement(
        "SELECT active FROM pg_catalog.pg_replication_slots WHERE slot_name = ?")) {
      ps.setString(1, slot);
      while (System.nanoTime() < deadline) {
        try (ResultSet rs = ps.executeQuery()) {
          if (!rs.next() || !rs.getBoolean(1)) {
            return;
          }
        }
        java.util.concurrent.locks.LockSupport.parkNanos(10_000_000L);
      }
    }
  }

  /** Where the slot's stream begins. */
  public Lsn consistentPoint() {
    return consistentPoint;
  }

  /**
   * A connection whose open transaction sees the database at {@link #consistentPoint()}; read
   * only: a change made here would be invisible to the reads it is meant for.
   */
  public Connection snapshot() {
    return snapshot;
  }

  /** Ends the snapshot's transaction and closes its connection; the slot stays. */
  @Override
  public void close() {
    try {
      snapshot.rollback();
    } catch (SQLException e) {
      // closing ends it either way
    }
    PostgresConnections.closeQuietly(snapshot);
  }
}
