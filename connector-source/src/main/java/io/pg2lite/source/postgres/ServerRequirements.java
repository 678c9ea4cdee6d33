package io.pg2lite.source.postgres;

import io.pg2lite.source.config.ConfigProblem;
import io.pg2lite.source.config.ConfigProblemException;
import io.pg2lite.source.config.SourceConfig;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;

/**
 * What the server the source connected to must be, checked the same way by {@code validate()}
 * ({@link PostgresProbe}) and by every start ({@code SourceStartup}), each naming the server
 * (with a host list: the one that answered) and the version or setting:
 * <ul>
 *   <li>Postgres 15 or newer: pg2lite's catalog function reads {@code pg_publication_tables.attnames},
 *       which Postgres 15 added, and the backfill copies apply publication row filters (15+); on 14
 *       the catalog install would fail with a message that does not say why;
 *   <li>{@code wal_level = logical}: without it no logical slot can be created or read.
 * </ul>
 * And, not required but said (a WARN), what a primary failover without a resync needs
 * ({@link #failoverWarnings}): Postgres 17+, a failover slot, {@code synchronized_standby_slots}.
 */
public final class ServerRequirements {
  /** The oldest major version pg2lite runs on. */
  public static final int MIN_MAJOR = 15;
  /** The first major version with failover slots ({@code failover = true}, {@code sync_replication_slots}). */
  public static final int FAILOVER_MAJOR = 17;

  /**
   * What was read from the server.
   *
   * @param server {@code host:port} of the server that answered (null when pgjdbc does not tell)
   * @param versionNum {@code server_version_num}, e.g. 170002
   * @param version {@code server_version}, e.g. "17.2"
   * @param synchronizedStandbySlots {@code synchronized_standby_slots} (Postgres 17+; null before)
   */
  public record Facts(String server, int versionNum, String version, String walLevel,
      String synchronizedStandbySlots) {
    public int major() {
      return versionNum / 10000;
    }

    /** How messages name the server: {@code Postgres at host:port}. */
    String named() {
      return server == null ? "the Postgres server" : "Postgres at " + server;
    }
  }

  private ServerRequirements() {}

  /** Reads the facts over {@code c}. */
  public static Facts read(Connection c) throws SQLException {
    try (Statement s = c.createStatement();
        ResultSet rs = s.executeQuery("SELECT current_setting('server_version_num')::int, "
            + "current_setting('server_version'), current_setting('wal_level'), "
            + "current_setting('synchronized_standby_slots', true)")) {
      rs.next();
      return new Facts(PostgresConnections.server(c), rs.getInt(1), rs.getString(2), rs.getString(3),
          rs.getString(4));
    }
  }

  /** The requirements {@code facts} breaks, each on {@code database.hostname}: empty when none. */
  public static List<ConfigProblem> problems(Facts facts) {
    List<ConfigProblem> out = new ArrayList<>();
    if (facts.major() < MIN_MAJOR) {
      out.add(new ConfigProblem(SourceConfig.HOST_CONFIG, "pg2lite needs PostgreSQL " + MIN_MAJOR + " or newer; "
          + facts.named() + " runs " + facts.version()));
    }
    if (!"logical".equals(facts.walLevel())) {
      out.add(new ConfigProblem(SourceConfig.HOST_CONFIG, facts.named() + " runs with wal_level="
          + facts.walLevel() + "; logical replication needs wal_level=logical (postgresql.conf, then restart)"));
    }
    return out;
  }

  /**
   * Reads the facts over {@code c} and fails on the first requirement they break.
   *
   * @throws ConfigProblemException (permanent: a setting or an upgrade is needed, no retry helps)
   */
  public static Facts require(Connection c) throws SQLException {
    Facts facts = read(c);
    List<ConfigProblem> problems = problems(facts);
    if (!problems.isEmpty()) {
      throw new ConfigProblemException(problems.get(0));
    }
    return facts;
  }

  /**
   * What keeps a promotion from carrying the slot over, for a WARN (the source runs: these only
   * matter when the primary fails). Said when {@code database.hostname} lists servers (the operator
   * asked for failover) and, for the slot itself, whenever {@code slot.failover} is on.
   *
   * @param slotFailover the slot's {@code failover} flag after the start-up made it what it
   *     should be; null when the slot does not exist or the server predates failover slots
   */
  public static List<String> failoverWarnings(SourceConfig config, Facts facts, Boolean slotFailover) {
    List<String> out = new ArrayList<>();
    boolean list = config.hosts.isList();
    if (facts.major() < FAILOVER_MAJOR) {
      if (list) {
        out.add(SourceConfig.HOST_CONFIG + " lists " + config.hosts.servers().size() + " servers for a failover, but "
            + facts.named() + " runs PostgreSQL " + facts.version() + ": slots are synchronized to standbys only "
            + "from PostgreSQL " + FAILOVER_MAJOR + " on, so after a promotion slot " + config.slot + " is missing "
            + "and the replicas need a resync (operations.md, \"Primary failover\")");
      }
      return out;
    }
    if (!config.slotFailover) {
      if (list) {
        out.add(SourceConfig.HOST_CONFIG + " lists " + config.hosts.servers().size() + " servers for a failover, but "
            + SourceConfig.SLOT_FAILOVER_CONFIG + "=false: no standby keeps slot " + config.slot + ", so after a "
            + "promotion it is missing and the replicas need a resync");
      }
      return out;
    }
    if (Boolean.FALSE.equals(slotFailover)) {
      out.add("replication slot " + config.slot + " on " + facts.named() + " is not a failover slot (failover = "
          + "false), and the source could not make it one: no standby keeps it. Stop the connector and run "
          + "ALTER_REPLICATION_SLOT " + config.slot + " (FAILOVER true) on a replication connection (psql "
          + "\"dbname=... replication=database\"), or set " + SourceConfig.SLOT_FAILOVER_CONFIG + "=false to "
          + "silence this");
    }
    if (list && (facts.synchronizedStandbySlots() == null || facts.synchronizedStandbySlots().isBlank())) {
      out.add(SourceConfig.HOST_CONFIG + " lists " + config.hosts.servers().size() + " servers for a failover, but "
          + "synchronized_standby_slots is empty on " + facts.named() + ": the source may receive and write changes "
          + "a standby has not received yet, which a promotion of that standby loses while the replicas keep them. "
          + "Set synchronized_standby_slots to the standby's physical slot (primary_slot_name), and "
          + "sync_replication_slots = on with hot_standby_feedback = on on the standby (operations.md, "
          + "\"Primary failover\")");
    }
    return out;
  }
}
