package io.pg2lite.source.postgres;

import io.pg2lite.protocol.watermark.Lsn;
import io.pg2lite.source.schema.CatalogCheck;
import io.pg2lite.source.schema.CatalogView;
import io.pg2lite.source.schema.PublishedSchema;
import io.pg2lite.source.schema.PublishedSchemaParser;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/** Queries and commands on the upstream database that the source needs outside the replication stream. */
public final class PostgresCatalog {
  private final Connection c;

  public PostgresCatalog(Connection c) {
    this.c = c;
  }

  /**
   * The state of a replication slot.
   *
   * @param walStatus {@code pg_replication_slots.wal_status}: reserved, extended, unreserved or
   *     lost (Postgres 13+), null when unknown
   * @param invalidationReason why Postgres invalidated the slot: {@code invalidation_reason} on
   *     Postgres 17+ (wal_removed, rows_removed, wal_level_insufficient, idle_timeout), "conflicting"
   *     on 16 for a slot invalidated by a conflict with recovery; null for a valid slot (and on 15,
   *     where only {@code wal_status = lost} tells)
   * @param maxSlotWalKeepSize the server's {@code max_slot_wal_keep_size}, as it prints it
   * @param lagBytes the WAL the slot holds back: the server's WAL position (its replay position on
   *     a standby) minus the slot's confirmed flush; -1 when the slot has confirmed nothing
   */
  public record SlotState(String plugin, String database, Lsn confirmedFlush, boolean active, String walStatus,
      String invalidationReason, String maxSlotWalKeepSize, long lagBytes) {
    /** Postgres can no longer decode from this slot: it only can be dropped. */
    public boolean invalidated() {
      return "lost".equals(walStatus) || invalidationReason != null;
    }

    /**
     * For the metric: its {@code wal_status} (reserved, extended, unreserved), or "lost (reason)"
     * once Postgres invalidated it.
     */
    public String status() {
      return invalidated() ? "lost" + (invalidationReason == null ? "" : " (" + invalidationReason + ")")
          : String.valueOf(walStatus);
    }
  }

  /** The state of {@code slot}, or null when it does not exist. */
  public SlotState slot(String slot) throws SQLException {
    int version = c.getMetaData().getDatabaseMajorVersion();
    String reason = version >= 17 ? "invalidation_reason"
        : version >= 16 ? "CASE WHEN conflicting THEN 'conflicting' END" : "NULL::text";
    try (PreparedStatement ps = c.prepareStatement("SELECT plugin, database, confirmed_flush_lsn::text, active, "
        + "wal_status, " + reason + ", current_setting('max_slot_wal_keep_size'), "
        + "(CASE WHEN pg_is_in_recovery() THEN pg_last_wal_replay_lsn() ELSE pg_current_wal_lsn() END "
        + "- confirmed_flush_lsn)::bigint FROM pg_replication_slots WHERE slot_name = ?")) {
      ps.setString(1, slot);
      try (ResultSet rs = ps.executeQuery()) {
        if (!rs.next()) {
          return null;
        }
        String flush = rs.getString(3);
        return new SlotState(rs.getString(1), rs.getString(2), flush == null ? null : Lsn.parse(flush),
            rs.getBoolean(4), rs.getString(5), rs.getString(6), rs.getString(7),
            rs.getObject(8) == null ? -1 : rs.getLong(8));
      }
    }
  }

  /**
   * Whether {@code slot} is a failover slot ({@code pg_replication_slots.failover}, Postgres 17+):
   * null when it does not exist or the server predates failover slots.
   */
  public Boolean slotFailover(String slot) throws SQLException {
    if (c.getMetaData().getDatabaseMajorVersion() < ServerRequirements.FAILOVER_MAJOR) {
      return null;
    }
    try (PreparedStatement ps = c.prepareStatement("SELECT failover FROM pg_replication_slots WHERE slot_name = ?")) {
      ps.setString(1, slot);
      try (ResultSet rs = ps.executeQuery()) {
        return rs.next() ? rs.getBoolean(1) : null;
      }
    }
  }

  /**
   * Where this connection is, for a message about a slot that is not there: {@code host:port} and,
   * when the server's WAL is on a timeline after the first, that it was promoted from a standby
   * (or restored to a point in time) at some point: the timeline is the first 8 hex digits of
   * the current WAL file's name, readable by any role.
   */
  public String whereSlotsLive() {
    String server = PostgresConnections.server(c);
    String where = server == null ? "the Postgres server" : server;
    try (Statement s = c.createStatement(); ResultSet rs = s.executeQuery(
        "SELECT CASE WHEN pg_is_in_recovery() THEN NULL ELSE pg_walfile_name(pg_current_wal_lsn()) END")) {
      rs.next();
      String walFile = rs.getString(1);
      long timeline = walFile == null ? 0 : Long.parseLong(walFile.substring(0, 8), 16);
      return timeline > 1 ? where + ", on WAL timeline " + timeline + ": a standby promoted (or a restore)" : where;
    } catch (SQLException | RuntimeException e) {
      return where;
    }
  }

  /** Drops {@code slot}; its walsender must be gone (a slot in use fails with SQLSTATE 55006, transient). */
  public void dropSlot(String slot) throws SQLException {
    try (PreparedStatement ps = c.prepareStatement("SELECT pg_drop_replication_slot(?)")) {
      ps.setString(1, slot);
      ps.execute();
    }
  }

  /**
   * A digest of what decides which tables {@code publication} holds: its own catalog rows (its
   * tables, column lists, row filters and schemas, by row version), and the tables and partitions
   * it may take in by their existence (all permanent tables for {@code FOR ALL TABLES}, those of its
   * schemas, and every partition link). Read with plain SQL, so in the transaction's snapshot:
   * compared with the same digest read now it tells whether membership changed in between, which
   * Postgres' own membership functions cannot (they read the catalogs as of now).
   */
  public String membershipFingerprint(String publication) throws SQLException {
    boolean schemas = c.getMetaData().getDatabaseMajorVersion() >= 15; // FOR TABLES IN SCHEMA
    String sql = "SELECT md5(coalesce(string_agg(x, ',' ORDER BY x), '')) FROM ("
        + "SELECT 'p' || p.oid || ':' || p.xmin::text FROM pg_catalog.pg_publication p WHERE p.pubname = ? "
        + "UNION ALL SELECT 'r' || r.oid || ':' || r.xmin::text FROM pg_catalog.pg_publication_rel r "
        + "JOIN pg_catalog.pg_publication p ON p.oid = r.prpubid WHERE p.pubname = ? "
        + (schemas ? "UNION ALL SELECT 'n' || n.oid || ':' || n.xmin::text FROM pg_catalog.pg_publication_namespace n "
            + "JOIN pg_catalog.pg_publication p ON p.oid = n.pnpubid WHERE p.pubname = ? " : "")
        + "UNION ALL SELECT 'c' || c.oid FROM pg_catalog.pg_class c JOIN pg_catalog.pg_publication p ON p.pubname = ? "
        + "WHERE c.relkind IN ('r', 'p') AND c.relpersistence = 'p' AND (p.puballtables"
        + (schemas ? " OR c.relnamespace IN (SELECT n.pnnspid FROM pg_catalog.pg_publication_namespace n "
            + "WHERE n.pnpubid = p.oid)" : "") + ") "
        + "UNION ALL SELECT 'i' || i.inhrelid || ':' || i.inhparent FROM pg_catalog.pg_inherits i) f(x)";
    try (PreparedStatement ps = c.prepareStatement(sql)) {
      int n = schemas ? 4 : 3;
      for (int i = 1; i <= n; i++) {
        ps.setString(i, publication);
      }
      try (ResultSet rs = ps.executeQuery()) {
        rs.next();
        return rs.getString(1);
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

  /**
   * Whether the connected user may replicate: it has the REPLICATION attribute or is a superuser,
   * or it is a member of a role that has it, as managed services grant it (RDS and Aurora:
   * {@code GRANT rds_replication TO app}; the service checks the membership, not the attribute).
   */
  public boolean currentUserMayReplicate() throws SQLException {
    try (PreparedStatement ps = c.prepareStatement("SELECT r.rolreplication OR r.rolsuper OR EXISTS (SELECT 1 FROM "
        + "pg_roles g WHERE (g.rolreplication OR g.rolname = 'rds_replication') AND g.oid <> r.oid "
        + "AND pg_has_role(r.oid, g.oid, 'MEMBER')) FROM pg_roles r WHERE r.rolname = current_user");
        ResultSet rs = ps.executeQuery()) {
      return rs.next() && rs.getBoolean(1);
    }
  }

  /** Whether the connected user may write logical messages (catalog checks, heartbeats). */
  public boolean mayWriteLogicalMessages() throws SQLException {
    // Postgres 17 added a fourth parameter (flush, with a default): look the function up by name.
    try (Statement s = c.createStatement(); ResultSet rs = s.executeQuery("SELECT coalesce(bool_or("
        + "has_function_privilege(p.oid, 'EXECUTE')), false) FROM pg_catalog.pg_proc p WHERE p.proname = "
        + "'pg_logical_emit_message' AND p.pronamespace = 'pg_catalog'::regnamespace "
        + "AND p.proargtypes[2] = 'text'::regtype")) {
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
   * are installed (for {@code validate()}, and the replication-stream mode, which installs
   * nothing): the query of {@code pg2lite.published_schema} is run as is, read out of install.sql
   * ({@link CatalogInstaller#publishedSchemaQuery}), as the connected user, so there is one query
   * and nothing is created.
   */
  public PublishedSchema publishedSchemaQueried(String publication) throws SQLException {
    return PublishedSchemaParser.parse(publishedSchemaJson(publication));
  }

  /**
   * The tables of {@code oids}, and every user table with an OID above {@code newerThan}, as the
   * published schema describes them, all their columns (no column list applied), read without
   * locking any of them ({@link CatalogInstaller#tablesQuery}). Tables that no longer exist are absent.
   */
  public PublishedSchema tables(String publication, Collection<Long> oids, long newerThan) throws SQLException {
    CatalogInstaller.Query q = CatalogInstaller.tablesQuery();
    try (PreparedStatement ps = c.prepareStatement(q.sql())) {
      ps.setArray(1, c.createArrayOf("bigint", oids.toArray()));
      ps.setLong(2, Math.min(newerThan, 0xFFFFFFFFL)); // an OID is 32 bits
      for (int i = 3; i <= q.parameters() + 2; i++) {
        ps.setString(i, publication);
      }
      try (ResultSet rs = ps.executeQuery()) {
        rs.next();
        return PublishedSchemaParser.parse(rs.getString(1));
      }
    }
  }

  /** The JSON of {@link #publishedSchemaQueried}. */
  String publishedSchemaJson(String publication) throws SQLException {
    CatalogInstaller.Query q = CatalogInstaller.publishedSchemaQuery();
    try (PreparedStatement ps = c.prepareStatement(q.sql())) {
      for (int i = 1; i <= q.parameters(); i++) {
        ps.setString(i, publication);
      }
      try (ResultSet rs = ps.executeQuery()) {
        rs.next();
        return rs.getString(1);
      }
    }
  }

  /**
   * Writes a catalog check into the WAL (replication-stream mode, ADR 0027): in one REPEATABLE
   * READ transaction, the snapshot and the publication's schema under it, then a transactional
   * logical message carrying both, which the stream delivers at the transaction's commit. Writes
   * nothing when the schema's JSON equals {@code unlessEqualTo}.
   */
  public CatalogCheckWrite writeCatalogCheck(String publication, String unlessEqualTo) throws SQLException {
    boolean auto = c.getAutoCommit();
    c.setAutoCommit(false);
    try {
      try (Statement s = c.createStatement()) {
        s.execute("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ");
        // pg_publication_tables opens every published table (Postgres 16+): behind a DDL's lock
        // request the check gives up and tries at the next interval, rather than hold the
        // tables it already opened, and every DDL on them, for as long as the DDL waits.
        s.execute("SET LOCAL lock_timeout = '1s'");
      }
      String snapshot;
      try (Statement s = c.createStatement(); ResultSet rs = s.executeQuery("SELECT pg_current_snapshot()::text")) {
        rs.next();
        snapshot = rs.getString(1);
      }
      String schema = publishedSchemaJson(publication);
      if (schema.equals(unlessEqualTo)) {
        c.rollback();
        return new CatalogCheckWrite(schema, false);
      }
      Map<Long, Long> membership = membership(publication);
      try (PreparedStatement ps = c.prepareStatement("SELECT pg_logical_emit_message(true, ?, ?)")) {
        ps.setString(1, CatalogCheck.PREFIX);
        ps.setString(2, CatalogCheck.message(snapshot, schema, membership));
        ps.execute();
      }
      c.commit();
      return new CatalogCheckWrite(schema, true);
    } catch (SQLException | RuntimeException e) {
      c.rollback();
      throw e;
    } finally {
      c.setAutoCommit(auto);
    }
  }

  /**
   * A digest of every catalog row a published schema is made of: the user tables' pg_class,
   * pg_attribute, pg_index and pg_attrdef rows, the publications, their tables and schemas, the
   * schemas; each row by its OID (or key) and {@code xmin}, the transaction that wrote its current
   * version, so any DDL that can change a published schema changes it (VACUUM and ANALYZE update
   * in place and do not). A tenth of the published schema's read for 2,000 tables
   * (docs/performance.md), and it reads the catalog only: no table is locked.
   */
  public String catalogFingerprint() throws SQLException {
    try (Statement s = c.createStatement(); ResultSet rs = s.executeQuery(FINGERPRINT)) {
      rs.next();
      return rs.getString(1);
    }
  }

  private static final String FINGERPRINT = "WITH rels AS (SELECT c.oid FROM pg_catalog.pg_class c JOIN "
      + "pg_catalog.pg_namespace n ON n.oid = c.relnamespace WHERE c.relkind IN ('r', 'p') AND n.nspname NOT IN "
      + "('pg_catalog', 'information_schema', 'pg_toast', 'pg2lite')) SELECT md5(concat_ws('|', "
      + "(SELECT string_agg(c.oid || ':' || c.xmin, ',' ORDER BY c.oid) FROM pg_catalog.pg_class c "
      + "JOIN rels r ON r.oid = c.oid), "
      + "(SELECT string_agg(a.attrelid || '.' || a.attnum || ':' || a.xmin, ',' ORDER BY a.attrelid, a.attnum) "
      + "FROM pg_catalog.pg_attribute a JOIN rels r ON r.oid = a.attrelid WHERE a.attnum > 0), "
      + "(SELECT string_agg(i.indexrelid || ':' || i.xmin, ',' ORDER BY i.indexrelid) FROM pg_catalog.pg_index i "
      + "JOIN rels r ON r.oid = i.indrelid), "
      + "(SELECT string_agg(d.oid || ':' || d.xmin, ',' ORDER BY d.oid) FROM pg_catalog.pg_attrdef d "
      + "JOIN rels r ON r.oid = d.adrelid), "
      + "(SELECT string_agg(p.oid || ':' || p.xmin, ',' ORDER BY p.oid) FROM pg_catalog.pg_publication p), "
      + "(SELECT string_agg(pr.oid || ':' || pr.xmin, ',' ORDER BY pr.oid) FROM pg_catalog.pg_publication_rel pr), "
      + "(SELECT string_agg(pn.oid || ':' || pn.xmin, ',' ORDER BY pn.oid) "
      + "FROM pg_catalog.pg_publication_namespace pn), "
      + "(SELECT string_agg(n.oid || ':' || n.xmin, ',' ORDER BY n.oid) FROM pg_catalog.pg_namespace n)))";

  /**
   * How each table listed by name or by schema is in the publication
   * ({@link io.pg2lite.source.schema.SchemaTracker#membership}), read from the catalog tables under
   * the transaction's snapshot.
   */
  private Map<Long, Long> membership(String publication) throws SQLException {
    Map<Long, Long> out = new HashMap<>();
    try (PreparedStatement ps = c.prepareStatement("SELECT c.oid::bigint, CASE WHEN r.oid IS NOT NULL THEN "
        + "r.oid::bigint ELSE -pn.oid::bigint END FROM pg_catalog.pg_publication p JOIN pg_catalog.pg_class c ON "
        + "c.relkind IN ('r', 'p') LEFT JOIN pg_catalog.pg_publication_rel r ON r.prpubid = p.oid AND r.prrelid = "
        + "c.oid LEFT JOIN pg_catalog.pg_publication_namespace pn ON pn.pnpubid = p.oid AND pn.pnnspid = "
        + "c.relnamespace WHERE p.pubname = ? AND (r.oid IS NOT NULL OR pn.oid IS NOT NULL)")) {
      ps.setString(1, publication);
      try (ResultSet rs = ps.executeQuery()) {
        while (rs.next()) {
          out.put(rs.getLong(1), rs.getLong(2));
        }
      }
    }
    return out;
  }

  /** What {@link #writeCatalogCheck} read, and whether it wrote it. */
  public record CatalogCheckWrite(String schema, boolean written) {}

  /** The types of {@code oids} as the published schema names them (see {@link CatalogView.TypeName}). */
  public Map<Long, CatalogView.TypeName> types(Collection<Long> oids) throws SQLException {
    Map<Long, CatalogView.TypeName> out = new HashMap<>();
    try (PreparedStatement ps = c.prepareStatement("SELECT t.oid::bigint, CASE WHEN bt.typelem <> 0 AND bt.typlen = -1"
        + " THEN et.typname || '[]' ELSE bt.typname END, t.typtype::text, et.typtype::text"
        + " FROM pg_catalog.pg_type t"
        + " JOIN pg_catalog.pg_type bt ON bt.oid = CASE WHEN t.typtype = 'd' THEN t.typbasetype ELSE t.oid END"
        + " LEFT JOIN pg_catalog.pg_type et ON et.oid = bt.typelem AND bt.typlen = -1"
        + " WHERE t.oid = ANY (?::oid[])")) {
      ps.setArray(1, c.createArrayOf("bigint", oids.toArray()));
      try (ResultSet rs = ps.executeQuery()) {
        while (rs.next()) {
          out.put(rs.getLong(1), new CatalogView.TypeName(rs.getString(2), rs.getString(3), rs.getString(4)));
        }
      }
    }
    return out;
  }

  /** The OID of schema {@code name}, or -1 when there is none. */
  public long schemaOid(String name) throws SQLException {
    try (PreparedStatement ps = c.prepareStatement("SELECT oid::bigint FROM pg_catalog.pg_namespace WHERE nspname = ?")) {
      ps.setString(1, name);
      try (ResultSet rs = ps.executeQuery()) {
        return rs.next() ? rs.getLong(1) : -1;
      }
    }
  }

  /**
   * The schema recorded under {@code id} in {@code pg2lite.schema_history} by releases that kept
   * the history in Postgres (ADR 0009), for offsets they stored; null when there is no such row or
   * no such table.
   */
  public PublishedSchema legacySchemaAt(String publication, long id) throws SQLException {
    try (Statement s = c.createStatement();
        ResultSet rs = s.executeQuery("SELECT to_regclass('pg2lite.schema_history') IS NOT NULL")) {
      rs.next();
      if (!rs.getBoolean(1)) {
        return null;
      }
    }
    try (PreparedStatement ps = c.prepareStatement(
        "SELECT schema::text FROM pg2lite.schema_history WHERE publication = ? AND id = ?")) {
      ps.setString(1, publication);
      ps.setLong(2, id);
      try (ResultSet rs = ps.executeQuery()) {
        return rs.next() ? PublishedSchemaParser.parse(rs.getString(1)) : null;
      }
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
