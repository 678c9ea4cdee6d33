package io.pg2lite.source.postgres;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import org.apache.kafka.connect.errors.ConnectException;

/**
 * Installs pg2lite's catalog objects (schema {@code pg2lite}: the published-schema function and
 * the DDL event triggers) once per database, idempotently, and registers a publication for DDL
 * reporting. Installing event triggers needs a superuser; a later start by a less privileged user
 * finds them installed and goes on.
 */
public final class CatalogInstaller {
  /** The version of install.sql; a database with an older one is upgraded. */
  public static final int VERSION = 3;
  /** The first version with {@code pg2lite.schema_history}. */
  public static final int SCHEMA_HISTORY = 2;
  private static final org.slf4j.Logger LOG = org.slf4j.LoggerFactory.getLogger(CatalogInstaller.class);

  private CatalogInstaller() {}

  /**
   * Installs or upgrades the catalog objects; returns the version in place afterwards. An older
   * version that a non-superuser cannot upgrade is kept (with a warning), and the source still
   * runs with what it lacks: version 1 the schema history (the restart limit ADR 0009 removes),
   * versions 1 and 2 the exclusion of generated columns pgoutput does not send (issue 32).
   */
  public static int ensureInstalled(Connection c) throws SQLException {
    int installed = installedVersion(c);
    if (installed >= VERSION) {
      return installed;
    }
    if (installed > 0 && !isSuperuser(c)) {
      LOG.warn("pg2lite's catalog objects in database {} are version {}, and user {} is not a superuser, which the "
          + "upgrade to version {} needs: the source runs with the old catalog (without the schema history before "
          + "version 2, so a restart behind later DDL resumes with today's schema; with generated columns in the "
          + "schema before version 3, which live rows leave NULL; docs/operations.md, upgrade). Start the connector "
          + "once as a superuser, or run install.sql as one.", c.getCatalog(), installed, c.getMetaData().getUserName(),
          VERSION);
      return installed;
    }
    if (!isSuperuser(c)) {
      throw new ConnectException("pg2lite's DDL event triggers are not installed in database " + c.getCatalog()
          + " and user " + c.getMetaData().getUserName() + " is not a superuser, which creating event triggers "
          + "requires. Start the connector once as a superuser, or run install.sql from the pg2lite source "
          + "connector as one.");
    }
    boolean auto = c.getAutoCommit();
    c.setAutoCommit(false);
    try (Statement s = c.createStatement()) {
      s.execute("SELECT pg_advisory_xact_lock(hashtext('pg2lite.install'))");
      // An upgrade runs while the old event triggers exist: without this they would report the
      // install script's own CREATE TABLE/INDEX as DDL (and an old published_schema includes
      // schema pg2lite for a FOR ALL TABLES publication). Event triggers do not fire in replica mode.
      s.execute("SET LOCAL session_replication_role = replica");
      s.execute(script());
      c.commit();
    } catch (SQLException e) {
      c.rollback();
      throw e;
    } finally {
      c.setAutoCommit(auto);
    }
    return VERSION;
  }

  /** Makes the DDL triggers report {@code publication}'s schema. */
  public static void registerPublication(Connection c, String publication) throws SQLException {
    try (PreparedStatement ps = c.prepareStatement(
        "INSERT INTO pg2lite.sources (publication) VALUES (?) ON CONFLICT DO NOTHING")) {
      ps.setString(1, publication);
      ps.executeUpdate();
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

  static boolean isSuperuser(Connection c) throws SQLException {
    try (Statement s = c.createStatement();
        ResultSet rs = s.executeQuery("SELECT rolsuper FROM pg_roles WHERE rolname = current_user")) {
      return rs.next() && rs.getBoolean(1);
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
