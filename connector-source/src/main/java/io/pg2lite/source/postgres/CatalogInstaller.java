package io.pg2lite.source.postgres;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Savepoint;
import java.sql.Statement;

/**
 * Installs pg2lite's catalog objects (schema {@code pg2lite}: the published-schema function and
 * the DDL event triggers) once per database, idempotently, and registers the publication for DDL
 * reporting, by trying: a role that may create event triggers (a superuser, or a managed
 * service's admin role such as RDS's {@code rds_superuser}, which is no superuser) succeeds; a
 * role that may not is told why, and the source then runs without event triggers (ADR 0027).
 * Whether a role may is never guessed from {@code rolsuper}.
 */
public final class CatalogInstaller {
  /** The version of install.sql; a database with an older one is upgraded. */
  public static final int VERSION = 5;
  /** SQLSTATE insufficient_privilege: what a role that may not install gets. */
  private static final String INSUFFICIENT_PRIVILEGE = "42501";
  private static final org.slf4j.Logger LOG = org.slf4j.LoggerFactory.getLogger(CatalogInstaller.class);

  private CatalogInstaller() {}

  /**
   * What trying gave.
   *
   * @param version the catalog version in place (0: none)
   * @param unavailable why the event triggers cannot report this publication, or null when they do
   */
  public record Outcome(int version, String unavailable) {
    public boolean eventTriggers() {
      return unavailable == null;
    }
  }

  /**
   * Installs or upgrades the catalog objects and registers {@code publication}. A catalog in place
   * whose upgrade the role may not run is kept, with a warning, as long as its triggers are
   * enabled: older versions report DDL too (version 1 and 2 with generated columns in the schema,
   * which live rows leave NULL).
   *
   * @param dryRun for {@code validate()}: all of it in one transaction, rolled back
   */
  public static Outcome tryInstall(Connection c, String publication, boolean dryRun) throws SQLException {
    int installed;
    boolean enabled;
    try {
      installed = installedVersion(c);
      enabled = installed > 0 && triggersEnabled(c);
    } catch (SQLException e) {
      if (!INSUFFICIENT_PRIVILEGE.equals(e.getSQLState())) {
        throw e;
      }
      // Installed by an administrator who gave this role no USAGE on schema pg2lite.
      return new Outcome(0, "user " + c.getMetaData().getUserName() + " may not read pg2lite's catalog in database "
          + c.getCatalog() + " (" + e.getMessage() + "; GRANT USAGE ON SCHEMA pg2lite and SELECT ON pg2lite.installed"
          + " to it)");
    }
    if (installed >= VERSION && enabled) {
      return register(c, publication, installed, dryRun);
    }
    boolean auto = c.getAutoCommit();
    c.setAutoCommit(false);
    try (Statement s = c.createStatement()) {
      s.execute("SELECT pg_advisory_xact_lock(hashtext('pg2lite.install'))");
      if (installed > 0) {
        quietOldTriggers(c);
      }
      s.execute(script());
      if (dryRun) {
        c.rollback();
      } else {
        c.commit();
      }
    } catch (SQLException e) {
      c.rollback();
      if (!INSUFFICIENT_PRIVILEGE.equals(e.getSQLState())) {
        throw e;
      }
      String user = c.getMetaData().getUserName();
      if (enabled) {
        LOG.warn("pg2lite's catalog objects in database {} are version {}, and user {} may not upgrade them to "
            + "version {} ({}): the source uses the old ones{}. Start the connector once as a role that may, or run "
            + "install.sql as one (docs/operations.md, upgrade).", c.getCatalog(), installed, user, VERSION,
            e.getMessage(), installed < 3 ? " (with generated columns in the schema, which live rows leave NULL)" : "");
        return register(c, publication, installed, dryRun);
      }
      return new Outcome(installed, "user " + user + " may not install pg2lite's catalog and event triggers in "
          + "database " + c.getCatalog() + " (" + e.getMessage() + ")");
    } finally {
      c.setAutoCommit(auto);
    }
    return dryRun ? new Outcome(VERSION, null) : register(c, publication, VERSION, false);
  }

  /**
   * An upgrade runs while the old event triggers exist: without this they would report the
   * install script's own CREATE TABLE/INDEX as DDL (and an old published_schema includes schema
   * pg2lite for a FOR ALL TABLES publication). Event triggers do not fire in replica mode. A role
   * that may not set it (it needs a superuser, or a grant) upgrades with the old triggers firing:
   * what they report is pg2lite's own schema, which is never replicated.
   */
  private static void quietOldTriggers(Connection c) throws SQLException {
    Savepoint before = c.setSavepoint();
    try (Statement s = c.createStatement()) {
      s.execute("SET LOCAL session_replication_role = replica");
    } catch (SQLException e) {
      if (!INSUFFICIENT_PRIVILEGE.equals(e.getSQLState())) {
        throw e;
      }
      c.rollback(before);
    }
  }

  /** Makes the DDL triggers report {@code publication}'s schema. */
  private static Outcome register(Connection c, String publication, int version, boolean dryRun)
      throws SQLException {
    if (registered(c, publication)) {
      return new Outcome(version, null);
    }
    String sql = dryRun ? "SELECT has_table_privilege('pg2lite.sources', 'INSERT')"
        : "INSERT INTO pg2lite.sources (publication) VALUES (?) ON CONFLICT DO NOTHING";
    try (PreparedStatement ps = c.prepareStatement(sql)) {
      if (dryRun) {
        try (ResultSet rs = ps.executeQuery()) {
          if (rs.next() && rs.getBoolean(1)) {
            return new Outcome(version, null);
          }
        }
        return new Outcome(version, notRegistered(c, "permission denied for table sources"));
      }
      ps.setString(1, publication);
      ps.executeUpdate();
      return new Outcome(version, null);
    } catch (SQLException e) {
      if (!INSUFFICIENT_PRIVILEGE.equals(e.getSQLState())) {
        throw e;
      }
      return new Outcome(version, notRegistered(c, e.getMessage()));
    }
  }

  /** Whether {@code publication} is registered already (false when the role may not read it). */
  private static boolean registered(Connection c, String publication) throws SQLException {
    boolean auto = c.getAutoCommit();
    Savepoint before = auto ? null : c.setSavepoint();
    try (PreparedStatement ps = c.prepareStatement("SELECT 1 FROM pg2lite.sources WHERE publication = ?")) {
      ps.setString(1, publication);
      try (ResultSet rs = ps.executeQuery()) {
        return rs.next();
      }
    } catch (SQLException e) {
      if (!INSUFFICIENT_PRIVILEGE.equals(e.getSQLState())) {
        throw e;
      }
      if (before != null) {
        c.rollback(before);
      }
      return false;
    }
  }

  private static String notRegistered(Connection c, String why) throws SQLException {
    String user = c.getMetaData().getUserName();
    return "pg2lite's event triggers are installed in database " + c.getCatalog() + ", but user " + user
        + " may not register its publication with them (" + why + "; GRANT INSERT ON pg2lite.sources TO " + user + ")";
  }

  /** Whether both of pg2lite's event triggers exist and are enabled. */
  static boolean triggersEnabled(Connection c) throws SQLException {
    try (Statement s = c.createStatement(); ResultSet rs = s.executeQuery("SELECT count(*) = 2 FROM "
        + "pg_catalog.pg_event_trigger WHERE evtname IN ('pg2lite_ddl_start', 'pg2lite_ddl_end') AND evtenabled <> 'D'")) {
      rs.next();
      return rs.getBoolean(1);
    }
  }

  public static int installedVersion(Connection c) throws SQLException {
    try (Statement s = c.createStatement();
        ResultSet rs = s.executeQuery("SELECT to_regclass('pg2lite.installed') IS NOT NULL")) {
      rs.next();
      if (!rs.getBoolean(1)) {
        return 0;
      }
    }
    try (Statement s = c.createStatement(); ResultSet rs = s.executeQuery("SELECT version FROM pg2lite.installed")) {
      return rs.next() ? rs.getInt(1) : 0;
    }
  }

  /** A query whose parameters ({@code ?}) all take the same value. */
  record Query(String sql, int parameters) {}

  private static final String PUBLISHED_SCHEMA_HEAD = "CREATE OR REPLACE FUNCTION pg2lite.published_schema(pub text)";
  private static final String BODY_QUOTE = "$fn$";
  /** The function's parameter where the body names it: not part of another name, a qualified name or a string. */
  private static final java.util.regex.Pattern PUB = java.util.regex.Pattern.compile("(?<![\\w.'])pub(?![\\w'])");

  /**
   * The body of {@code pg2lite.published_schema(pub)} in install.sql as a plain query of one text
   * parameter, {@code pub}, so that the schema can be read the same way before the function is
   * installed.
   */
  static Query publishedSchemaQuery() {
    String script = script();
    int head = script.indexOf(PUBLISHED_SCHEMA_HEAD);
    int open = head < 0 ? -1 : script.indexOf(BODY_QUOTE, head);
    int close = open < 0 ? -1 : script.indexOf(BODY_QUOTE, open + BODY_QUOTE.length());
    if (close < 0) {
      throw new IllegalStateException("install.sql: no body of pg2lite.published_schema(pub text) between "
          + BODY_QUOTE + " quotes");
    }
    String body = script.substring(open + BODY_QUOTE.length(), close).strip();
    if (body.contains("?")) {
      throw new IllegalStateException("install.sql: the body of pg2lite.published_schema holds a '?'");
    }
    java.util.regex.Matcher m = PUB.matcher(body);
    int count = 0;
    StringBuilder sql = new StringBuilder();
    while (m.find()) {
      m.appendReplacement(sql, "CAST(? AS text)");
      count++;
    }
    m.appendTail(sql);
    return new Query(sql.toString(), count);
  }

  /**
   * The published-schema query of {@link #publishedSchemaQuery} for given tables instead of the
   * publication's: its first parameter is an array of table OIDs, its second an OID above which
   * every user table is read too (tables created since the last read), the others ({@link
   * Query#parameters}) the publication.
   * It reads the catalog only, never {@code pg_publication_tables}, whose function opens every
   * published table (ACCESS SHARE): a read that waits behind a DDL's lock request, from the
   * thread a backfill copy waits on, would hold that DDL up until a lock timeout (fuzz seeds
   * 3503, 3504). For the same reason it leaves column defaults out ({@code pg_get_expr} opens the
   * table: fuzz seed 3507, a DROP TABLE held up behind a copy that waited for this read): without
   * event triggers every added column is backfilled, so no default is needed. Column lists are not
   * applied: the caller takes the columns a Relation message names.
   */
  /** A column default's text: {@code pg_get_expr} with a relation opens it (ACCESS SHARE) to name its columns. */
  private static final String DEFAULT_EXPRESSION = "pg_get_expr(d.adbin, d.adrelid)";

  static Query tablesQuery() {
    Query all = publishedSchemaQuery();
    String sql = all.sql();
    int start = sql.indexOf("WITH pt AS (");
    int end = sql.indexOf("\n  )", start);
    if (start < 0 || end < 0) {
      throw new IllegalStateException("install.sql: the body of pg2lite.published_schema has no \"WITH pt AS (\" "
          + "... \"\\n  )\" to read tables by OID with");
    }
    String byOid = "WITH pt AS (\n    SELECT c.oid AS reloid, n.oid AS nspoid, n.nspname, c.relname, c.relreplident, "
        + "NULL::name[] AS attnames\n    FROM pg_catalog.pg_class c JOIN pg_catalog.pg_namespace n ON n.oid = "
        + "c.relnamespace\n    WHERE c.oid = ANY (CAST(? AS bigint[])::oid[]) OR (c.oid > CAST(? AS bigint)::oid AND "
        + "c.relkind IN ('r', 'p') AND n.nspname NOT IN ('pg_catalog', 'information_schema', 'pg_toast', 'pg2lite'))";
    String tables = sql.substring(0, start) + byOid + sql.substring(end);
    if (!tables.contains(DEFAULT_EXPRESSION)) {
      throw new IllegalStateException("install.sql: the body of pg2lite.published_schema has no " + DEFAULT_EXPRESSION);
    }
    tables = tables.replace(DEFAULT_EXPRESSION, "NULL::text");
    return new Query(tables, tables.split("CAST\\(\\? AS text\\)", -1).length - 1);
  }

  static String script() {
    try (InputStream in = CatalogInstaller.class.getResourceAsStream("/io/pg2lite/source/schema/install.sql")) {
      if (in == null) {
        throw new IllegalStateException("install.sql missing from the plugin");
      }
      return new String(in.readAllBytes(), StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new IllegalStateException("cannot read install.sql", e);
    }
  }
}
