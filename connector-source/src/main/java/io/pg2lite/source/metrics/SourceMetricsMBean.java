package io.pg2lite.source.metrics;

import io.pg2lite.connect.metrics.FlowMBean;

/** JMX view of a running source task: {@code io.pg2lite:type=source,connector=<name>}. */
public interface SourceMetricsMBean extends FlowMBean {
  /** Watermark of the last upstream commit written to the change log. */
  String getLastCommitWatermark();

  /**
   * Bytes of WAL the slot retains: the server's current WAL position minus the slot's confirmed
   * flush position. Queried when read, at most every 5 seconds; -1 when Postgres cannot be asked.
   */
  long getSlotLagBytes();

  /**
   * The slot as Postgres reports it ({@code pg_replication_slots.wal_status}): reserved or
   * extended (healthy), unreserved (about to lose WAL it needs: the source is behind by more than
   * {@code max_slot_wal_keep_size}), "lost (reason)" once Postgres invalidated it, "missing", or
   * "unknown" when it cannot be read. Read at most once every 5 s.
   */
  String getSlotStatus();

  /** How many new lineages this task started ({@code resync.auto}). */
  long getNewLineages();

  /** Why the last new lineage began, "" when none did. */
  String getLastNewLineage();

  /**
   * The copies under way as the source writes them, one per table, "; "-separated: rows copied of
   * the rows in the copy's snapshot, the rate and the time left at that rate, e.g. {@code
   * public.big 300,000/1,000,000 rows (30%), 98,000 rows/s, ETA 8 s}; empty when none runs.
   */
  String getBackfillProgress();

  /** Rows still to copy, over all copies under way. */
  long getBackfillRowsRemaining();

  /**
   * How the source learns of schema changes: {@code event-triggers} (pg2lite's catalog and event
   * triggers are installed) or {@code replication-stream} (Relation messages and catalog checks;
   * docs/source-connector.md, "Schema changes without event triggers").
   */
  String getDdlDetection();

  /**
   * Replication-stream mode: when the last catalog check that completed began (epoch ms); a schema
   * change committed before then is in the WAL before that check's message, or was reported by an
   * earlier one. -1 before the first, and with event triggers.
   */
  long getLastCatalogCheck();
}
