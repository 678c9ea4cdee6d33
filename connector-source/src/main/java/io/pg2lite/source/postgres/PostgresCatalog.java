package io.pg2lite.source.postgres;

import io.pg2lite.protocol.watermark.Lsn;
import io.pg2lite.source.schema.PublishedSchema;
import io.pg2lite.source.schema.PublishedSchemaParser;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.List;

/** Queries and commands on the upstream database that the source needs outside the replication stream. */
public final class PostgresCatalog {
  private final Connection c;

  public PostgresCatalog(Connection c) {
    this.c = c;
  }

  /** The state of a replication slot, or null when it does not exist. */
  public record SlotState(String plugin, String database, Lsn confirmedFlush, boolean active) {}

  public SlotState slot(String slot) throws SQLException {
    try (PreparedStatement ps = c.prepareStatement("SELECT plugin, database, confirmed_flush_lsn::text, active "
        + "FROM pg_replication_slots WHERE slot_name = ?")) {
      ps.setString(1, slot);
      try (ResultSet rs = ps.executeQuery()) {
        if (!rs.next()) {
          return null;
        }
        String flush = rs.getString(3);
        return new SlotState(rs.getString(1), rs.getString(2), flush == null ? null : Lsn.parse(flush), rs.getBoolean(4));
      }
    }
  }

  /** Creates a pgoutput logical slot; returns its consistent point. */
  public Lsn createSlot(String slot) throws SQLException {
    try (PreparedStatement ps = c.prepareStatement(
        "SELECT lsn::text FROM pg_create_logical_replication_slot(?, 'pgoutput')")) {
      ps.setString(1, slot);
      try (ResultSet rs = ps.executeQuery()) {
        rs.next();
        return Lsn.parse(rs.getString(1));
      }
    }
  }

  /** WAL bytes {@code slot} retains (current WAL position minus confirmed flush), or -1 without the slot. */
  public long slotLagBytes(String slot) throws SQLException {
    try (PreparedStatement ps = c.prepareStatement("SELECT (pg_current_wal_lsn() - confirmed_flush_lsn)::bigint "
        + "FROM pg_replication_slots WHERE slot_name = ?")) {
      ps.setString(1, slot);
      try (ResultSet rs = ps.executeQuery()) {
        return rs.next() ? rs.getLong(1) : -1;
      }
    }
  }

  public boolean publicationExists(String publication) throws SQLException {
    try (PreparedStatement ps = c.prepareStatement("SELECT 1 FROM pg_publication WHERE pubname = ?")) {
      ps.setString(1, publication);
      try (ResultSet rs = ps.executeQuery()) {
        return rs.next();
      }
    }
  }

  /**
   * How each partitioned table in {@code publication} reaches the replica, a line each: a
   * partitioned root published as itself ({@code publish_via_partition_root = true}: one replica
   * table), or a partition published as a table of its own (the default: one replica table per
   * partition, none for the root). Empty when the publication holds no partitioned table.
   */
  public List<String> partitionedTables(String publication) throws SQLException {
    List<String> out = new java.util.ArrayList<>();
    try (PreparedStatement ps = c.prepareStatement("SELECT t.schemaname || '.' || t.tablename, c.relkind = 'p',"
        + " pn.nspname || '.' || p.relname FROM pg_publication_tables t"
        + " JOIN pg_namespace n ON n.nspname = t.schemaname"
        + " JOIN pg_class c ON c.relnamespace = n.oid AND c.relname = t.tablename"
        + " LEFT JOIN pg_inherits i ON i.inhrelid = c.oid LEFT JOIN pg_class p ON p.oid = i.inhparent"
        + " LEFT JOIN pg_namespace pn ON pn.oid = p.relnamespace"
        + " WHERE t.pubname = ? AND (c.relkind = 'p' OR c.relispartition) ORDER BY 1")) {
      ps.setString(1, publication);
      try (ResultSet rs = ps.executeQuery()) {
        while (rs.next()) {
          out.add(rs.getBoolean(2)
              ? rs.getString(1) + " is partitioned and published through its root (publish_via_partition_root):"
                  + " the replica holds it as one table"
              : rs.getString(1) + " is a partition of " + rs.getString(3) + ", published as itself: the replica"
                  + " holds it as a table of its own (set publish_via_partition_root on the publication for one"
                  + " table)");
        }
      }
    }
    return out;
  }

  /** Creates {@code publication} FOR TABLE the given tables (each {@code schema.table} or {@code table}). */
  public void createPublication(String publication, List<String> tables) throws SQLException {
    StringBuilder sql = new StringBuilder("CREATE PUBLICATION ").append(Identifiers.quote(publication))
        .append(" FOR TABLE ");
    for (int i = 0; i < tables.size(); i++) {
      sql.append(i == 0 ? "" : ", ").append(Identifiers.quoteQualified(tables.get(i)));
    }
    try (Statement s = c.createStatement()) {
      s.execute(sql.toString());
    }
  }

  /** The server's {@code wal_level}. */
  public String walLevel() throws SQLException {
    try (Statement s = c.createStatement(); ResultSet rs = s.executeQuery("SHOW wal_level")) {
      rs.next();
      return rs.getString(1);
    }
  }

  /** Whether the connected user has the REPLICATION attribute or is a superuser. */
  public boolean currentUserMayReplicate() throws SQLException {
    try (PreparedStatement ps = c.prepareStatement(
        "SELECT rolreplication OR rolsuper FROM pg_roles WHERE rolname = current_user");
        ResultSet rs = ps.executeQuery()) {
      return rs.next() && rs.getBoolean(1);
    }
  }

  /** The publication's schema, by {@code pg2lite.published_schema}, which must be installed. */
  public PublishedSchema publishedSchema(String publication) throws SQLException {
    try (PreparedStatement ps = c.prepareStatement("SELECT pg2lite.published_schema(?)::text")) {
      ps.setString(1, publication);
      try (ResultSet rs = ps.executeQuery()) {
        rs.next();
        return PublishedSchemaParser.parse(rs.getString(1));
      }
    }
  }

  /**
   * The publication's schema as the source will read it, also before pg2lite's catalog objects
   * are installed (for {@code validate()}): then the query of {@code pg2lite.published_schema} is
   * run as is, read out of install.sql ({@link CatalogInstaller#publishedSchemaQuery}), as the
   * connected user, so there is one query and nothing is created.
   */
  public PublishedSchema publishedSchemaAsInstalledOrNot(String publication) throws SQLException {
    boolean installed;
    try (Statement s = c.createStatement();
        ResultSet rs = s.executeQuery("SELECT to_regprocedure('pg2lite.published_schema(text)') IS NOT NULL")) {
      rs.next();
      installed = rs.getBoolean(1);
    }
    if (installed) {
      return publishedSchema(publication);
    }
    CatalogInstaller.Query q = CatalogInstaller.publishedSchemaQuery();
    try (PreparedStatement ps = c.prepareStatement(q.sql())) {
      for (int i = 1; i <= q.parameters(); i++) {
        ps.setString(i, publication);
      }
      try (ResultSet rs = ps.executeQuery()) {
        rs.next();
        return PublishedSchemaParser.parse(rs.getString(1));
      }
    }
  }

  /** A published schema and its id in {@code pg2lite.schema_history}. */
  public record RecordedSchema(long id, PublishedSchema schema) {}

  /** Records the publication's current schema in the history (or finds it as the newest row). */
  public RecordedSchema recordSchema(String publication) throws SQLException {
    try (PreparedStatement ps = c.prepareStatement("SELECT schema_id, schema::text FROM pg2lite.record_schema(?)")) {
      ps.setString(1, publication);
      try (ResultSet rs = ps.executeQuery()) {
        rs.next();
        return new RecordedSchema(rs.getLong(1), PublishedSchemaParser.parse(rs.getString(2)));
      }
    }
  }

  /** The schema recorded under {@code id}; null when the history no longer has it. */
  public PublishedSchema schemaAt(String publication, long id) throws SQLException {
    try (PreparedStatement ps = c.prepareStatement("SELECT pg2lite.schema_at(?, ?)::text")) {
      ps.setString(1, publication);
      ps.setLong(2, id);
      try (ResultSet rs = ps.executeQuery()) {
        rs.next();
        String json = rs.getString(1);
        return json == null ? null : PublishedSchemaParser.parse(json);
      }
    }
  }

  /** Forgets the publication's schemas older than {@code keepFrom}. */
  public void pruneSchemaHistory(String publication, long keepFrom) throws SQLException {
    try (PreparedStatement ps = c.prepareStatement("SELECT pg2lite.prune_schema_history(?, ?)")) {
      ps.setString(1, publication);
      ps.setLong(2, keepFrom);
      ps.execute();
    }
  }

  /**
   * Sets REPLICA IDENTITY USING INDEX for a published table that has no primary key but a usable
   * unique index, so its updates and deletes carry the key (as the reference does).
   */
  public void useIndexAsReplicaIdentity(String schema, String table, String index) throws SQLException {
    try (Statement s = c.createStatement()) {
      s.execute("ALTER TABLE " + Identifiers.quote(schema) + "." + Identifiers.quote(table)
          + " REPLICA IDENTITY USING INDEX " + Identifiers.quote(index));
    }
  }
}
