package io.pg2lite.source.debezium;

import io.pg2lite.source.config.PostgresHosts;
import io.pg2lite.source.config.SourceConfig;
import io.pg2lite.source.value.ConnectValueMapper;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The Debezium Postgres settings pg2lite depends on. Some are not negotiable (pgoutput, no
 * snapshot, transaction metadata, truncates, string decimals): the rest of the source is built
 * on what they produce, and {@code debezium.*} overrides of them are refused.
 */
final class DebeziumProperties {
  /** Debezium writes this for an unchanged TOASTed column; pg2lite drops the column instead. */
  /** Prefix of the transactional heartbeat message that moves an idle slot forward. */
  static final String HEARTBEAT_MESSAGE_PREFIX = "pg2lite.heartbeat";

  private static final Map<String, String> FIXED = Map.ofEntries(
      Map.entry("connector.class", "io.debezium.connector.postgresql.PostgresConnector"),
      Map.entry("plugin.name", "pgoutput"),
      Map.entry("publication.autocreate.mode", "disabled"),
      Map.entry("snapshot.mode", "no_data"),
      Map.entry("provide.transaction.metadata", "true"),
      Map.entry("skipped.operations", "none"),
      Map.entry("tombstones.on.delete", "false"),
      Map.entry("decimal.handling.mode", "string"),
      Map.entry("time.precision.mode", "adaptive_time_microseconds"),
      Map.entry("interval.handling.mode", "string"),
      Map.entry("binary.handling.mode", "bytes"),
      Map.entry("hstore.handling.mode", "json"),
      Map.entry("include.unknown.datatypes", "true"),
      Map.entry("unavailable.value.placeholder", ConnectValueMapper.UNCHANGED_TOAST),
      Map.entry("slot.drop.on.stop", "false"),
      // Row fields must carry the Postgres column names: the change log names columns by them,
      // and the decoder reader matches fields to columns by name (DecodedMessageMapper).
      Map.entry("field.name.adjustment.mode", "none"),
      // Every field schema carries its Postgres type (__debezium.source.column.type), so values
      // are interpreted by column type, never guessed from their content.
      Map.entry("column.propagate.source.type", ".*"));

  /**
   * Settings pg2lite refuses in any form. Debezium custom converters would replace the value
   * conversion that docs/type-mapping.md promises, and the decoder reader reads some types
   * (timestamptz) from Postgres' text without Debezium's converters at all.
   */
  private static final Map<String, String> REFUSED = Map.of("converters",
      "custom converters would replace pg2lite's fixed type mapping (docs/type-mapping.md)");

  private DebeziumProperties() {}

  /**
   * @param driverProperties pgjdbc properties of every Postgres connection of the source (TLS:
   *     {@link io.pg2lite.source.postgres.PostgresConnections#driverProperties}), given to
   *     Debezium as {@code database.*}
   */
  static Map<String, String> of(SourceConfig config, Map<String, String> driverProperties, String logicalName) {
    Map<String, String> p = new HashMap<>();
    // Defaults an operator may tune through debezium.* overrides.
    p.put("poll.interval.ms", "5"); // latency: the queue poll and the idle pause of the streaming loop
    p.put("max.batch.size", "4096");
    p.put("max.queue.size", "16384");
    p.put("status.update.interval.ms", "1000");
    p.putAll(config.debeziumOverrides);
    for (Map.Entry<String, String> fixed : FIXED.entrySet()) {
      String requested = config.debeziumOverrides.get(fixed.getKey());
      if (requested != null && !requested.equals(fixed.getValue())) {
        throw new IllegalArgumentException("debezium." + fixed.getKey() + "=" + requested
            + " is not supported: pg2lite requires " + fixed.getValue());
      }
    }
    for (Map.Entry<String, String> refused : REFUSED.entrySet()) {
      if (config.debeziumOverrides.containsKey(refused.getKey())) {
        throw new IllegalArgumentException("debezium." + refused.getKey() + " is not supported: " + refused.getValue());
      }
    }
    for (String key : config.debeziumOverrides.keySet()) {
      if (key.startsWith("database.ssl")) {
        throw new IllegalArgumentException("debezium." + key + " is not supported: the TLS settings are "
            + "database.sslmode, .sslrootcert, .sslcert, .sslkey and .sslpassword, so that every Postgres connection "
            + "of the source (replication, catalog, backfill) uses the same ones");
      }
    }
    p.putAll(FIXED);
    p.put("name", logicalName);
    p.put("topic.prefix", logicalName);
    p.putAll(hostAndPort(config.hosts));
    p.put("database.dbname", config.database);
    p.put("database.user", config.user);
    p.put("database.password", config.password.value());
    driverProperties.forEach((k, v) -> p.put("database." + k, v));
    p.put("slot.name", config.slot);
    p.put("publication.name", config.publication);
    if (config.heartbeatIntervalMs > 0) {
      p.put("heartbeat.interval.ms", String.valueOf(config.heartbeatIntervalMs));
      // A transactional logical message is a transaction Debezium sees and commits, so the slot
      // advances even when no published table (or no table at all) changes.
      p.put("heartbeat.action.query", "SELECT pg_logical_emit_message(true, '" + HEARTBEAT_MESSAGE_PREFIX + "', '')");
    }
    return p;
  }

  /**
   * {@code database.hostname} and {@code database.port} that make Debezium's URL, which it builds
   * as {@code jdbc:postgresql://<hostname>:<port>/<dbname>}, the same host list as the source's
   * own ({@link SourceConfig#jdbcUrl()}): every server but the last with its port in the host
   * name, the last one's port as the port. So Debezium's replication and metadata connections try
   * the same servers in the same order, and with a list pick the primary by the same driver
   * properties ({@code database.targetServerType}).
   */
  static Map<String, String> hostAndPort(PostgresHosts hosts) {
    List<PostgresHosts.Server> servers = hosts.servers();
    PostgresHosts.Server last = servers.get(servers.size() - 1);
    StringBuilder hostname = new StringBuilder();
    for (PostgresHosts.Server s : servers.subList(0, servers.size() - 1)) {
      hostname.append(s).append(',');
    }
    hostname.append(last.host());
    return Map.of("database.hostname", hostname.toString(), "database.port", String.valueOf(last.port()));
  }
}
