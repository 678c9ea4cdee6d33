package io.pg2lite.testkit.fuzz;

import java.util.EnumSet;
import java.util.Locale;
import java.util.Set;

/**
 * What the {@link WorkloadGenerator} may generate. Everything is on by default (that is what
 * {@code mvn verify} runs); switching one off ({@code -Dpg2lite.fuzz.disable=RETYPE,NEGATIVE_ZERO})
 * tells whether a failing seed fails because of that feature. Switching a feature off changes the
 * random sequence, so a seed with a feature off is a different workload, not a subset.
 */
public enum FuzzFeature {
  /** Explicit NULLs, also on columns that have a DEFAULT. */
  NULLS,
  /** Inserts that leave columns out so their DEFAULT applies; columns created with defaults. */
  DEFAULTS,
  /** Text values over 8 kB stored out of line, and updates that leave them unchanged. */
  TOAST,
  /**
   * Text values of 1 to 3 MB (a few percent of rows): larger than Kafka's default record, so the
   * change log carries them in parts (docs/protocol.md, "Large messages").
   */
  LARGE_VALUES,
  /** float NaN and ±Infinity. */
  FLOAT_SPECIALS,
  /** float -0.0 (issue 10: not kept exactly). */
  NEGATIVE_ZERO,
  /** numeric NaN, ±Infinity, very large and very small scales. */
  NUMERIC_EXTREMES,
  /**
   * dates and timestamps in year 1, 9999, before 1970 with fractions, BC, infinity and -infinity;
   * time 24:00:00; negative and mixed intervals.
   */
  TEMPORAL_EXTREMES,
  /** dates and timestamps after year 9999 (up to 294276, Postgres' last timestamp year). */
  YEAR_BEYOND_9999,
  /**
   * interval columns (Postgres prints them in ISO 8601 under IntervalStyle iso_8601; whether the
   * live stream writes the same text is what this checks).
   */
  INTERVALS,
  /**
   * int4[], int8[], text[], numeric[], date[] and timestamptz[] columns with NULL elements,
   * quotes, commas, braces, two dimensions, NaN and infinity elements.
   */
  ARRAYS,
  /** time (24:00:00), timetz, point, int4range, varbit, inet and money columns: Postgres' text (issue 32). */
  POSTGRES_TEXT_TYPES,
  /** json and jsonb with quotes, escapes, unicode, JSON null. */
  JSON,
  /** UPDATEs that change a row's key. */
  KEY_CHANGES,
  /** TRUNCATE of one or several tables. */
  TRUNCATE,
  /** transactions that roll back, and savepoints rolled back inside committed transactions. */
  ROLLBACKS,
  /** two sessions with interleaved, overlapping transactions. */
  CONCURRENT_SESSIONS,
  /** CREATE TABLE and DROP TABLE during the workload. */
  CREATE_DROP_TABLE,
  /** ALTER TABLE ... RENAME TO. */
  RENAME_TABLE,
  /** ADD COLUMN, without default or with a constant default. */
  ADD_COLUMN,
  /** ADD COLUMN with a volatile default (clock_timestamp(), random(), gen_random_uuid()): backfilled. */
  VOLATILE_DEFAULT,
  /** ADD COLUMN with an array constant default (issue 10: not kept exactly). */
  ARRAY_DEFAULT,
  /** RENAME COLUMN of non-key columns. */
  RENAME_COLUMN,
  /** RENAME COLUMN of a primary-key column. */
  KEY_COLUMN_RENAME,
  /** DROP COLUMN. */
  DROP_COLUMN,
  /** ALTER COLUMN ... TYPE ... USING. */
  RETYPE,
  /** CREATE INDEX (unique, descending, multi-column) and DROP INDEX. */
  INDEXES,
  /** the primary key replaced by another one (a composite key and back). */
  PRIMARY_KEY_CHANGE,
  /** ALTER PUBLICATION ADD TABLE (backfilled) and DROP TABLE. */
  PUBLICATION_CHANGES,
  /** identifiers with upper case, spaces, quotes, semicolons, dots, non-ASCII letters, keywords. */
  QUOTED_NAMES,
  /** DDL and DML in the same transaction. */
  DDL_WITH_DML,
  /** restarts of the source task, the sink task and the whole Connect worker mid-workload. */
  RESTARTS,
  /**
   * the sink takes a snapshot every second, and a restart of the whole worker also loses the
   * replica file: the sink restores its newest snapshot and catches up (or replays the log when
   * there is none yet). The generator never reads this one, so seeds keep their workloads.
   */
  SNAPSHOT_RESTORES,
  /**
   * the source's slot lost once mid-workload: its walsender terminated and the slot dropped, as a
   * person or a provider's limit (max_slot_wal_keep_size) does. The source runs with
   * {@code resync.auto}: it starts a new lineage, the sink builds the new replica beside the old
   * one and swaps it in (issue 35). The generator never reads this one (the test inserts the loss
   * at a point drawn from the seed: {@link Workload#withSlotLoss}), so seeds keep their workloads.
   */
  SLOT_LOSS,
  /**
   * replica followers (issue 25) beside the sink: one follows from the start and is stopped and
   * started again on each restart of the sink; with {@link #SNAPSHOT_RESTORES}, each restart of
   * the worker also starts a new follower on an empty file, which restores the sink's newest
   * snapshot mid-workload. Each follower's replica is compared with Postgres like the sink's. The
   * generator never reads this one, so seeds keep their workloads.
   */
  FOLLOWERS,
  /**
   * verification requests (issue 29) at three points of the workload drawn from the seed, inside
   * transactions or between them: {@code pg2lite.verify} messages (the function's message, so it
   * works without the catalog objects too). Every table answered must match, or be not comparable
   * for a reason that is no failure (a copy, a truncate, a schema change in the window): a second
   * oracle beside the cell-by-cell compare. The generator never reads this one
   * ({@link Workload#withVerifications}), so seeds keep their workloads.
   */
  VERIFY;

  /** Every feature: what {@code mvn verify} runs. */
  public static Set<FuzzFeature> all() {
    return EnumSet.allOf(FuzzFeature.class);
  }

  /**
   * All features except those named in {@code disabled} (comma separated, case-insensitive;
   * empty or null disables nothing).
   */
  public static Set<FuzzFeature> allExcept(String disabled) {
    EnumSet<FuzzFeature> out = EnumSet.allOf(FuzzFeature.class);
    if (disabled != null) {
      for (String name : disabled.split(",")) {
        if (!name.isBlank()) {
          out.remove(FuzzFeature.valueOf(name.trim().toUpperCase(Locale.ROOT)));
        }
      }
    }
    return out;
  }
}
