package io.pg2lite.source.postgres;

import io.pg2lite.source.config.SourceConfig;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Keeps the source's slot a failover slot on Postgres 17+ ({@code slot.failover}, on by default),
 * so that a standby with {@code sync_replication_slots = on} holds a synchronized copy of it and
 * the source resumes from that copy after the standby's promotion, with nothing lost and nothing
 * twice (ADR 0036).
 *
 * <p>A slot the source creates is created so ({@link CreatedSlot}, {@code FAILOVER true}). A slot
 * that exists without it (created before pg2lite set it, before an upgrade to 17, or by hand) is
 * altered at start with {@code ALTER_REPLICATION_SLOT}; that needs the slot idle, and a slot
 * still held by the walsender of a task that is stopping refuses: then the start goes on and a
 * WARN says what to run, since the slot works as before and only a failover would lose it.
 */
public final class FailoverSlot {
  private static final Logger LOG = LoggerFactory.getLogger(FailoverSlot.class);
  private FailoverSlot() {}

  /** Whether a slot created on this server now is created as a failover slot. */
  public static boolean wanted(SourceConfig config, ServerRequirements.Facts facts) {
    return config.slotFailover && facts.major() >= ServerRequirements.FAILOVER_MAJOR;
  }

  /**
   * Once the slot is the lineage's: turns failover on where it is wanted and off on the slot, then
   * WARNs of what a failover would still lack ({@link ServerRequirements#failoverWarnings}).
   */
  public static void settle(SourceConfig config, ServerRequirements.Facts facts, PostgresCatalog catalog,
      CreatedSlot.Connections postgres) throws SQLException {
    Boolean failover = catalog.slotFailover(config.slot);
    if (wanted(config, facts) && Boolean.FALSE.equals(failover)) {
      try {
        alter(postgres, config.slot);
        failover = catalog.slotFailover(config.slot);
        LOG.info("Replication slot {} is now a failover slot (failover = {}), as {}=true asks", config.slot, failover,
            SourceConfig.SLOT_FAILOVER_CONFIG);
      } catch (SQLException e) {
        LOG.warn("Could not make replication slot {} a failover slot: {}", config.slot, e.getMessage());
      }
    }
    ServerRequirements.failoverWarnings(config, facts, failover).forEach(LOG::warn);
  }

  /** {@code ALTER_REPLICATION_SLOT <slot> (FAILOVER true)} on a walsender connection (Postgres 17+). */
  static void alter(CreatedSlot.Connections postgres, String slot) throws SQLException {
    CreatedSlot.requireSlotName(slot); // ALTER_REPLICATION_SLOT is a replication command: a walsender connection
    try (Connection walsender = postgres.connect(CreatedSlot.WALSENDER); Statement s = walsender.createStatement()) {
      s.execute("ALTER_REPLICATION_SLOT " + slot + " (FAILOVER true)");
    }
  }
}
