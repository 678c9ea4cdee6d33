package io.pg2lite.source.config;

import io.pg2lite.source.kafka.ChangeLogTopic;
import io.pg2lite.source.postgres.PostgresCatalog;
import io.pg2lite.source.schema.PublishedSchema;
import io.pg2lite.source.schema.PublishedSchemaParser;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Properties;
import org.apache.kafka.common.config.Config;
import org.apache.kafka.common.config.ConfigValue;

/**
 * The checks of {@code validate()} that need the live database and broker. Each problem is
 * attached to the field an operator must change, with a message saying what is wrong.
 */
public final class SourceValidator {
  private final Config config;
  private final Map<String, String> props;

  public SourceValidator(Config config, Map<String, String> props) {
    this.config = config;
    this.props = props;
  }

  public void validate() {
    if (config.configValues().stream().anyMatch(v -> !v.errorMessages().isEmpty())) {
      return; // fix the fields first; live checks with a broken config only add noise
    }
    SourceConfig c = new SourceConfig(props);
    validatePostgres(c);
    validateTopic(c);
  }

  private void validatePostgres(SourceConfig c) {
    Properties p = new Properties();
    p.setProperty("user", c.user);
    p.setProperty("password", c.password.value());
    p.setProperty("connectTimeout", "10");
    p.setProperty("socketTimeout", "30");
    try (Connection conn = DriverManager.getConnection(c.jdbcUrl(), p)) {
      String walLevel = single(conn, "SHOW wal_level");
      if (!"logical".equals(walLevel)) {
        error(SourceConfig.HOST_CONFIG, "the server runs with wal_level=" + walLevel
            + "; logical replication needs wal_level=logical (postgresql.conf, then restart)");
      }
      try (PreparedStatement ps = conn.prepareStatement(
          "SELECT rolreplication OR rolsuper FROM pg_roles WHERE rolname = current_user");
          ResultSet rs = ps.executeQuery()) {
        if (!rs.next() || !rs.getBoolean(1)) {
          error(SourceConfig.USER_CONFIG, "user " + c.user + " lacks the REPLICATION attribute "
              + "(ALTER ROLE " + c.user + " WITH REPLICATION)");
        }
      }
      PostgresCatalog catalog = new PostgresCatalog(conn);
      if (!catalog.publicationExists(c.publication)) {
        if (c.publicationTables.isEmpty()) {
          error(SourceConfig.PUBLICATION_CONFIG, "publication " + c.publication + " does not exist; create it or "
              + "list its tables in " + SourceConfig.PUBLICATION_TABLES_CONFIG);
        }
      } else {
        List<String> keyless = keylessTables(conn, c);
        if (!keyless.isEmpty()) {
          error(SourceConfig.PUBLICATION_CONFIG, "published tables without a primary key"
              + (c.requirePrimaryKey ? "" : " or a unique index over NOT NULL columns") + ": "
              + String.join(", ", keyless));
        }
      }
    } catch (SQLException e) {
      connectionError(c, e);
    }
  }

  /** Published tables without a usable key, found with the same function the source uses. */
  private static List<String> keylessTables(Connection conn, SourceConfig c) throws SQLException {
    String json;
    boolean installed;
    try (Statement s = conn.createStatement();
        ResultSet rs = s.executeQuery("SELECT to_regprocedure('pg2lite.published_schema(text)') IS NOT NULL")) {
      rs.next();
      installed = rs.getBoolean(1);
    }
    if (!installed) {
      return keylessTablesWithoutCatalog(conn, c);
    }
    try (PreparedStatement ps = conn.prepareStatement("SELECT pg2lite.published_schema(?)::text")) {
      ps.setString(1, c.publication);
      try (ResultSet rs = ps.executeQuery()) {
        rs.next();
        json = rs.getString(1);
      }
    }
    PublishedSchema schema = PublishedSchemaParser.parse(json);
    List<String> out = new ArrayList<>();
    for (PublishedSchema.Table t : schema.tables()) {
      if (t.keyIndex(!c.requirePrimaryKey) == null) {
        out.add(t.schema() + "." + t.name());
      }
    }
    return out;
  }

  /** Before pg2lite's catalog is installed: tables with neither a primary key nor (if allowed) a unique index. */
  private static List<String> keylessTablesWithoutCatalog(Connection conn, SourceConfig c) throws SQLException {
    String sql = "SELECT t.schemaname || '.' || t.tablename FROM pg_publication_tables t "
        + "JOIN pg_namespace n ON n.nspname = t.schemaname JOIN pg_class r ON r.relnamespace = n.oid "
        + "AND r.relname = t.tablename WHERE t.pubname = ? AND NOT EXISTS (SELECT 1 FROM pg_index i "
        + "WHERE i.indrelid = r.oid AND (i.indisprimary OR (? AND i.indisunique AND i.indimmediate "
        + "AND i.indpred IS NULL AND i.indexprs IS NULL AND NOT EXISTS (SELECT 1 FROM unnest(i.indkey) k "
        + "JOIN pg_attribute a ON a.attrelid = r.oid AND a.attnum = k WHERE NOT a.attnotnull)))) ORDER BY 1";
    try (PreparedStatement ps = conn.prepareStatement(sql)) {
      ps.setString(1, c.publication);
      ps.setBoolean(2, !c.requirePrimaryKey);
      List<String> out = new ArrayList<>();
      try (ResultSet rs = ps.executeQuery()) {
        while (rs.next()) {
          out.add(rs.getString(1));
        }
      }
      return out;
    }
  }

  private void connectionError(SourceConfig c, SQLException e) {
    String state = e.getSQLState() == null ? "" : e.getSQLState();
    if (state.equals("28P01") || state.equals("28000")) {
      error(SourceConfig.USER_CONFIG, "authentication failed for user " + c.user + ": " + e.getMessage());
      error(SourceConfig.PASSWORD_CONFIG, "authentication failed for user " + c.user);
    } else if (state.equals("3D000")) {
      error(SourceConfig.DATABASE_CONFIG, "database " + c.database + " does not exist");
    } else if (state.startsWith("08")) {
      error(SourceConfig.HOST_CONFIG, "cannot connect to Postgres at " + c.host + ":" + c.port + ": " + e.getMessage());
    } else {
      error(SourceConfig.HOST_CONFIG, "Postgres at " + c.host + ":" + c.port + " refused the check: " + e.getMessage());
    }
  }

  private void validateTopic(SourceConfig c) {
    try {
      Optional<Integer> partitions = new ChangeLogTopic(c.kafkaBootstrapServers, withTimeouts(c.kafkaClientProps))
          .partitions(c.topic);
      if (partitions.isPresent() && partitions.get() != 1) {
        error(SourceConfig.TOPIC_CONFIG, "topic " + c.topic + " has " + partitions.get()
            + " partitions; the change log needs exactly one");
      } else if (partitions.isEmpty() && !c.createTopics) {
        error(SourceConfig.TOPIC_CONFIG, "topic " + c.topic + " does not exist and "
            + SourceConfig.TOPIC_CREATE_CONFIG + " is false");
      }
    } catch (RuntimeException e) {
      error(SourceConfig.KAFKA_BOOTSTRAP_CONFIG, "cannot reach Kafka at " + c.kafkaBootstrapServers + ": "
          + e.getMessage());
    }
  }

  private static Map<String, Object> withTimeouts(Map<String, Object> props) {
    Map<String, Object> m = new java.util.HashMap<>(props);
    m.putIfAbsent("default.api.timeout.ms", "15000");
    m.putIfAbsent("request.timeout.ms", "10000");
    return m;
  }

  private static String single(Connection c, String sql) throws SQLException {
    try (Statement s = c.createStatement(); ResultSet rs = s.executeQuery(sql)) {
      rs.next();
      return rs.getString(1);
    }
  }

  private void error(String field, String message) {
    for (ConfigValue v : config.configValues()) {
      if (v.name().equals(field)) {
        v.addErrorMessage(message);
        return;
      }
    }
  }
}
