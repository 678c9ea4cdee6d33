package io.pg2lite.source.postgres;

import io.pg2lite.source.config.ConfigProblem;
import io.pg2lite.source.config.ConfigProblemException;
import io.pg2lite.source.config.SourceConfig;
import io.pg2lite.source.schema.DdlDetection;
import io.pg2lite.source.schema.PublishedSchema;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * The live Postgres checks of {@code validate()}: the TLS settings are usable and the server can be
 * reached with them and the credentials (a TLS problem lands on the setting it names),
 * is Postgres 15 or newer and runs with {@code wal_level=logical} ({@link ServerRequirements}; what a
 * failover would lack is logged as a WARN), the user may replicate, the publication exists (or
 * {@code publication.tables} is set), and every published table has a row key by the same rule,
 * read from the same published schema, as the source's start-up ({@link PublishedSchema.Table#keyIndex}).
 */
public final class PostgresProbe {
  private static final org.slf4j.Logger LOG = org.slf4j.LoggerFactory.getLogger(PostgresProbe.class);
  private final SourceConfig config;

  public PostgresProbe(SourceConfig config) {
    this.config = config;
  }

  public List<ConfigProblem> problems() {
    List<ConfigProblem> out = new ArrayList<>();
    try (PostgresConnections postgres = PostgresConnections.open(config);
        Connection conn = postgres.connect(Map.of("connectTimeout", "10", "socketTimeout", "30"))) {
      PostgresCatalog catalog = new PostgresCatalog(conn);
      ServerRequirements.Facts server = ServerRequirements.read(conn);
      List<ConfigProblem> unmet = ServerRequirements.problems(server);
      if (server.major() < ServerRequirements.MIN_MAJOR) {
        return unmet; // the checks below query catalogs an older server does not have
      }
      out.addAll(unmet);
      ServerRequirements.failoverWarnings(config, server, catalog.slotFailover(config.slot)).forEach(LOG::warn);
      if (!catalog.currentUserMayReplicate()) {
        out.add(new ConfigProblem(SourceConfig.USER_CONFIG, "user " + config.user + " lacks the REPLICATION attribute "
            + "(ALTER ROLE " + config.user + " WITH REPLICATION)"));
      }
      if (!catalog.publicationExists(config.publication)) {
        if (config.publicationTables.isEmpty()) {
          out.add(new ConfigProblem(SourceConfig.PUBLICATION_CONFIG, "publication " + config.publication
              + " does not exist; create it or list its tables in " + SourceConfig.PUBLICATION_TABLES_CONFIG));
        }
      } else {
        out.addAll(keyProblems(config, catalog.publishedSchemaQueried(config.publication)));
      }
      out.addAll(ddlDetectionProblems(conn, catalog));
      out.addAll(slotProblems(catalog));
    } catch (ConfigProblemException e) {
      out.add(e.problem()); // a TLS setting (PostgresTls, TlsFailures)
    } catch (SQLException e) {
      out.addAll(connectionProblems(config, e));
    }
    return out;
  }

  /**
   * What {@code ddl.detection} will run into, found the way the start-up will: event triggers are
   * tried in a transaction that is rolled back ({@link CatalogInstaller#tryInstall}). A source that
   * would fall back to the replication stream is told so (a WARN, as at start: not an error, it
   * runs); one that asked for event triggers and cannot have them gets an error; the replication
   * stream needs to write catalog checks ({@code pg_logical_emit_message}).
   */
  private List<ConfigProblem> ddlDetectionProblems(Connection conn, PostgresCatalog catalog) throws SQLException {
    boolean stream = DdlDetection.REPLICATION_STREAM.configName().equals(config.ddlDetection);
    if (!stream) {
      CatalogInstaller.Outcome outcome = CatalogInstaller.tryInstall(conn, config.publication, true);
      if (outcome.eventTriggers()) {
        return List.of();
      }
      if (DdlDetection.EVENT_TRIGGERS.configName().equals(config.ddlDetection)) {
        return List.of(new ConfigProblem(SourceConfig.DDL_DETECTION_CONFIG, outcome.unavailable() + "; "
            + "event-triggers requires them (auto or replication-stream runs without)"));
      }
      LOG.warn(DdlDetection.withoutEventTriggers(outcome.unavailable(), config.publication,
          config.schemaCheckIntervalMs));
    }
    if (!catalog.mayWriteLogicalMessages()) {
      return List.of(new ConfigProblem(SourceConfig.DDL_DETECTION_CONFIG, "without event triggers the source writes "
          + "catalog checks with pg_logical_emit_message, which user " + config.user + " may not execute (GRANT "
          + "EXECUTE ON FUNCTION pg_logical_emit_message TO " + config.user + ")"));
    }
    return List.of();
  }

  /**
   * A slot Postgres invalidated cannot be read again: without {@code resync.auto} the task would
   * fail at start, so validation says so first; with it, the start-up begins a new lineage.
   */
  private List<ConfigProblem> slotProblems(PostgresCatalog catalog) throws SQLException {
    PostgresCatalog.SlotState slot = catalog.slot(config.slot);
    if (slot == null || !slot.invalidated()) {
      return List.of();
    }
    String cause = io.pg2lite.source.lineage.SlotLoss.invalidated(config.slot, slot);
    if (config.resyncAuto) {
      LOG.warn("{}: with {}=true the source starts a new lineage when it starts", cause,
          SourceConfig.RESYNC_AUTO_CONFIG);
      return List.of();
    }
    return List.of(new ConfigProblem(SourceConfig.SLOT_CONFIG, cause + "; the change log cannot go on from it. Set "
        + SourceConfig.RESYNC_AUTO_CONFIG + "=true for the source to start a new lineage, or resync by hand "
        + "(operations.md, \"Resync\")"));
  }

  /** The published tables without a usable row key, as one problem on the publication. */
  static List<ConfigProblem> keyProblems(SourceConfig config, PublishedSchema schema) {
    List<String> keyless = schema.tablesWithoutKey(!config.requirePrimaryKey).stream()
        .map(t -> t.schema() + "." + t.name()).toList();
    if (keyless.isEmpty()) {
      return List.of();
    }
    return List.of(new ConfigProblem(SourceConfig.PUBLICATION_CONFIG, "published tables without a primary key"
        + (config.requirePrimaryKey ? "" : " or a unique index over NOT NULL columns") + ": "
        + String.join(", ", keyless)));
  }

  /** What a failed connection or check means, on the field to change (by SQLSTATE). */
  static List<ConfigProblem> connectionProblems(SourceConfig config, SQLException e) {
    String state = e.getSQLState() == null ? "" : e.getSQLState();
    String server = config.hosts.toString();
    if (state.equals("28P01") || state.equals("28000")) {
      return List.of(
          new ConfigProblem(SourceConfig.USER_CONFIG, "authentication failed for user " + config.user + ": "
              + e.getMessage()),
          new ConfigProblem(SourceConfig.PASSWORD_CONFIG, "authentication failed for user " + config.user));
    }
    if (state.equals("3D000")) {
      return List.of(new ConfigProblem(SourceConfig.DATABASE_CONFIG, "database " + config.database + " does not exist"));
    }
    if (state.startsWith("08")) {
      return List.of(new ConfigProblem(SourceConfig.HOST_CONFIG, "cannot connect to Postgres at " + server + ": "
          + e.getMessage()));
    }
    return List.of(new ConfigProblem(SourceConfig.HOST_CONFIG, "Postgres at " + server + " refused the check: "
        + e.getMessage()));
  }
}
