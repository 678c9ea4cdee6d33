package io.pg2lite.replica.file;

import io.pg2lite.replica.lite.SqlNames;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;

/**
 * The replica's own tables, next to the replicated ones: their names and their layout. The names
 * start with {@code _pg2lite.}, which no upstream table of schema {@code public} can collide with
 * unless it is named so on purpose; the layout is part of the replica file's format
 * (docs/sink-connector.md, "The replica file"), read by tools and by older and newer sinks, so a
 * column is only ever added, never changed.
 */
public final class MetadataTables {
  /** One row: the replica's position ({@link ReplicaState}). */
  public static final String STATE = "_pg2lite.state";
  /** Per column of a replicated table: upstream type, storage, and whether it is still being backfilled. */
  public static final String COLUMNS = "_pg2lite.columns";
  /**
   * Per replicated table: its upstream name, row key and metadata, and whether it is being copied
   * whole (then its rows are in {@code SqlNames.copying(table_name)}).
   */
  public static final String TABLES = "_pg2lite.tables";
  /** The backfill merge's record of row operations (the {@code changelog} package). */
  public static final String CHANGES = "_pg2lite.changes";
  /**
   * Per verification and table (issue 29, ADR 0040): the position it was asked at and its outcome,
   * {@code pending} until the replica's digest is done ({@code replica.verify.VerifyRows}).
   */
  public static final String VERIFY = "_pg2lite.verify";

  private MetadataTables() {}

  /** Creates the tables a new replica lacks, and the columns an older replica lacks. */
  static void create(Statement s) throws SQLException {
    s.execute("CREATE TABLE IF NOT EXISTS " + SqlNames.quote(STATE) + " (lock INTEGER PRIMARY KEY CHECK (lock = 1),"
        + " replica_version TEXT, watermark TEXT, topic TEXT, partition INTEGER, kafka_offset INTEGER,"
        + " log_seq INTEGER)");
    addColumnIfMissing(s, STATE, "log_seq", "INTEGER");
    plainSecondaryIndexes(s);
    s.execute("CREATE TABLE IF NOT EXISTS " + SqlNames.quote(TABLES) + " (table_name TEXT PRIMARY KEY,"
        + " upstream_schema TEXT NOT NULL, upstream_name TEXT NOT NULL, row_key TEXT NOT NULL,"
        + " upstream_metadata TEXT, min_row_version TEXT NOT NULL DEFAULT '00', copying INTEGER NOT NULL DEFAULT 0)");
    addColumnIfMissing(s, TABLES, "copying", "INTEGER NOT NULL DEFAULT 0");
    s.execute("CREATE TABLE IF NOT EXISTS " + SqlNames.quote(COLUMNS) + " (table_name TEXT NOT NULL,"
        + " column_name TEXT NOT NULL, pos INTEGER NOT NULL, upstream_type TEXT NOT NULL, storage TEXT NOT NULL,"
        + " is_not_null INTEGER, character_max_length INTEGER, backfill TEXT,"
        + " PRIMARY KEY (table_name, column_name))");
    s.execute("CREATE TABLE IF NOT EXISTS " + SqlNames.quote(CHANGES) + " (table_name TEXT NOT NULL,"
        + " row_key TEXT NOT NULL, op TEXT NOT NULL, state_version TEXT NOT NULL,"
        + " column_versions TEXT NOT NULL DEFAULT '{}', PRIMARY KEY (table_name, row_key))");
    s.execute("CREATE TABLE IF NOT EXISTS " + SqlNames.quote(VERIFY) + " (id TEXT NOT NULL, table_name TEXT NOT NULL,"
        + " watermark TEXT NOT NULL, snapshot TEXT NOT NULL, since TEXT NOT NULL, result TEXT NOT NULL, detail TEXT,"
        + " source_rows INTEGER, replica_rows INTEGER, excluded INTEGER, checked_at TEXT,"
        + " PRIMARY KEY (id, table_name))");
  }

  /**
   * A replica written before secondary indexes were plain has upstream unique indexes as UNIQUE
   * ones: they are made plain (see {@code ReplicaSchema.createIndex}), keeping name, columns and
   * order. The row-key indexes stay unique.
   */
  private static void plainSecondaryIndexes(Statement s) throws SQLException {
    java.util.List<String[]> unique = new java.util.ArrayList<>();
    try (ResultSet rs = s.executeQuery("SELECT name, sql FROM sqlite_master WHERE type = 'index' AND sql LIKE "
        + "'CREATE UNIQUE INDEX %' AND name NOT LIKE '%.pg2lite!_row!_key' ESCAPE '!'")) {
      while (rs.next()) {
        unique.add(new String[] {rs.getString(1), rs.getString(2)});
      }
    }
    for (String[] index : unique) {
      s.execute("DROP INDEX " + SqlNames.quote(index[0]));
      s.execute("CREATE INDEX " + index[1].substring("CREATE UNIQUE INDEX ".length()));
    }
  }

  /**
   * Adds {@code column} (with its type and constraints, {@code definition}) to {@code table} when an
   * older replica lacks it: {@code log_seq} of the state row (null: no number known yet), and
   * {@code copying} of the tables (0: a replica created before tables were copied under another
   * name stores them all, copies in progress included, under their own names).
   */
  private static void addColumnIfMissing(Statement s, String table, String column, String definition)
      throws SQLException {
    try (ResultSet rs = s.executeQuery("SELECT 1 FROM pragma_table_info('" + table + "') WHERE name = '" + column
        + "'")) {
      if (rs.next()) {
        return;
      }
    }
    s.execute("ALTER TABLE " + SqlNames.quote(table) + " ADD COLUMN " + column + " " + definition);
  }
}
