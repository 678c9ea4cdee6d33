package io.pg2lite.source;

import io.pg2lite.protocol.watermark.Watermark;
import io.pg2lite.source.config.SourceConfig;
import io.pg2lite.source.kafka.ChangeLogTopic;
import io.pg2lite.source.kafka.SchemaHistory;
import io.pg2lite.source.postgres.CatalogInstaller;
import io.pg2lite.source.postgres.PostgresCatalog;
import io.pg2lite.source.schema.DdlDetection;
import io.pg2lite.source.schema.PublishedSchema;
import io.pg2lite.source.schema.RecordedSchema;
import io.pg2lite.source.transaction.SourcePosition;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.Map;
import java.util.Optional;
import org.apache.kafka.connect.errors.ConnectException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The schema half of the source's start-up: how schema changes will be detected (ADR 0027), and
 * the schema the stream resumes with (ADR 0028).
 */
final class SchemaStartup {
  private static final Logger LOG = LoggerFactory.getLogger(SchemaStartup.class);

  private final SourceConfig config;

  SchemaStartup(SourceConfig config) {
    this.config = config;
  }

  /**
   * Event triggers where {@code ddl.detection} allows and the role may install them (by trying:
   * {@link CatalogInstaller#tryInstall}); else the replication stream, with one WARN naming what
   * is missing and what it costs, unless the setting asked for that mode.
   */
  DdlDetection chooseDetection(Connection c) throws SQLException {
    if (DdlDetection.REPLICATION_STREAM.configName().equals(config.ddlDetection)) {
      LOG.info("Schema changes of publication {} are read from the replication stream ({} = {})",
          config.publication, SourceConfig.DDL_DETECTION_CONFIG, config.ddlDetection);
      return DdlDetection.REPLICATION_STREAM;
    }
    CatalogInstaller.Outcome outcome = CatalogInstaller.tryInstall(c, config.publication, false);
    if (outcome.eventTriggers()) {
      return DdlDetection.EVENT_TRIGGERS;
    }
    if (DdlDetection.EVENT_TRIGGERS.configName().equals(config.ddlDetection)) {
      throw new ConnectException(outcome.unavailable() + ", and " + SourceConfig.DDL_DETECTION_CONFIG + " = "
          + config.ddlDetection + " requires them. Let the role create event triggers (a superuser, or a managed "
          + "service's admin role), run install.sql as such a role, or set " + SourceConfig.DDL_DETECTION_CONFIG
          + " to auto or replication-stream (docs/source-connector.md, 'Schema changes without event triggers').");
    }
    LOG.warn(DdlDetection.withoutEventTriggers(outcome.unavailable(), config.publication,
        config.schemaCheckIntervalMs));
    return DdlDetection.REPLICATION_STREAM;
  }

  /** The publication's schema now, as the chosen mode reads it. */
  PublishedSchema current(PostgresCatalog catalog, DdlDetection detection) throws SQLException {
    return detection == DdlDetection.EVENT_TRIGGERS ? catalog.publishedSchema(config.publication)
        : catalog.publishedSchemaQueried(config.publication);
  }

  /**
   * The schema a restart resumes with, and whether it must be recorded anew: the one recorded
   * for the stored commit (ADR 0028); else, for offsets of a release that kept the history in
   * Postgres, the row they name there; else today's schema, with a warning (the history topic
   * was deleted): rows written before DDL that committed while the source was stopped may then be
   * keyed by it.
   */
  Resumed resume(PostgresCatalog catalog, SourcePosition stored, ChangeLogTopic topic, SchemaHistory history,
      PublishedSchema now) throws SQLException {
    Optional<RecordedSchema> recorded = topic.schemaAtOrBefore(history, stored.replicaVersion(), stored.lastCommit());
    if (recorded.isPresent()) {
      return new Resumed(recorded.get(), false);
    }
    Watermark at = stored.lastCommit();
    if (stored.legacySchemaId() != null) {
      PublishedSchema legacy = catalog.legacySchemaAt(config.publication, stored.legacySchemaId());
      if (legacy != null) {
        LOG.info("Resuming publication {} with the schema its offsets name in pg2lite.schema_history (id {}), "
            + "recorded from now on in topic {}", config.publication, stored.legacySchemaId(), config.schemaHistoryTopic);
        return new Resumed(new RecordedSchema(at, stored.replicaVersion(), legacy, Map.of(), Map.of(),
            DdlDetection.EVENT_TRIGGERS), true);
      }
    }
    LOG.warn("Topic {} holds no schema of publication {} as of {} (deleted, or a retention shorter than unlimited): "
        + "resuming with the current schema; rows written before DDL that committed while the source was stopped "
        + "may be keyed by it", config.schemaHistoryTopic, config.publication, at);
    return new Resumed(new RecordedSchema(at, stored.replicaVersion(), now, Map.of(), Map.of(),
        DdlDetection.REPLICATION_STREAM), true);
  }

  /** See {@link #resume}. */
  record Resumed(RecordedSchema schema, boolean recordAgain) {}
}
