package io.pg2lite.source.schema;

/**
 * How the source learns of schema changes (ADR 0027). Logical replication carries no DDL; the
 * source reads it one of two ways.
 */
public enum DdlDetection {
  /**
   * pg2lite's event triggers report each DDL command inside its own transaction, as the published
   * schema before and after it: exact, at the command. Needs a role that may create event triggers.
   */
  EVENT_TRIGGERS("event-triggers"),
  /**
   * pgoutput's Relation messages (exact, but only before a table's next change) and catalog checks
   * the source writes into the stream (for what Relation messages never carry: tables added or
   * removed, indexes, changes of a table that has no rows since). Needs nothing installed.
   */
  REPLICATION_STREAM("replication-stream");

  private final String configName;

  DdlDetection(String configName) {
    this.configName = configName;
  }

  /** The name the {@code ddl.detection} setting and the metric use. */
  public String configName() {
    return configName;
  }

  /**
   * The WARN of a source that runs without event triggers although it was not asked to: what is
   * missing, what it costs, what to do (at start, and from {@code validate()}).
   */
  public static String withoutEventTriggers(String missing, String publication, long checkIntervalMs) {
    return "Schema changes of publication " + publication + " will be read from the replication stream, without "
        + "event triggers: " + missing + ". What that costs: a schema change reaches replicas with the table's "
        + "next row change, or within schema.check.interval.ms (" + checkIntervalMs + " ms) when none follows (a "
        + "table added to or removed from the publication, an index); every column added is copied by a backfill "
        + "(the stream does not say what values it got), and so is a renamed column (the stream cannot tell a "
        + "rename from a drop and an add). docs/source-connector.md, 'Schema changes without event triggers'. For "
        + "event triggers, start the connector once as a role that may create them (a superuser or a managed "
        + "service's admin role) or run install.sql as one; ddl.detection = replication-stream chooses this mode "
        + "without this warning.";
  }
}
