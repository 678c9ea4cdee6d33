package io.pg2lite.source.config;

import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import org.apache.kafka.common.config.ConfigDef;
import org.apache.kafka.common.config.ConfigException;

/**
 * The Postgres servers of {@code database.hostname}: one host, or a list the source tries in
 * order ({@code primary.example,standby.example:5433}), each with its own port or
 * {@code database.port}. Every connection of the source is built from this one list
 * ({@link SourceConfig#jdbcUrl()}, Debezium's replication and metadata connections, the backfill
 * copies), so after a promotion they all find the same new primary.
 *
 * <p>With more than one server pgjdbc connects only to the one that accepts writes
 * ({@code targetServerType=primary}): a standby that is still a standby is skipped, and one just
 * promoted is taken. A single server is connected to as before, whatever it is.
 */
public final class PostgresHosts {
  /** {@code host}, {@code host:port}, {@code [v6]} or {@code [v6]:port}. */
  private static final Pattern ENTRY = Pattern.compile("(\\[[0-9A-Fa-f:.]+\\]|[^\\s,:\\[\\]/?#@]+)(?::([0-9]+))?");

  /** One server of the list. */
  public record Server(String host, int port) {
    @Override
    public String toString() {
      return host + ":" + port;
    }
  }

  private final List<Server> servers;

  private PostgresHosts(List<Server> servers) {
    this.servers = List.copyOf(servers);
  }

  /**
   * Parses {@code value}; entries without a port take {@code defaultPort}.
   *
   * @throws ConfigException naming {@code database.hostname} and the entry that is wrong
   */
  public static PostgresHosts parse(String value, int defaultPort) {
    if (value == null || value.isBlank()) {
      throw new ConfigException(SourceConfig.HOST_CONFIG, value, "names no host");
    }
    List<Server> out = new ArrayList<>();
    for (String raw : value.split(",", -1)) {
      String entry = raw.strip();
      if (entry.isEmpty()) {
        throw new ConfigException(SourceConfig.HOST_CONFIG, value, "has an empty entry: list hosts as "
            + "host1,host2:5433 (each host, or host:port)");
      }
      Matcher m = ENTRY.matcher(entry);
      if (!m.matches()) {
        throw new ConfigException(SourceConfig.HOST_CONFIG, value, "entry '" + entry + "' is not a host or "
            + "host:port (an IPv6 address in brackets: [::1]:5432)");
      }
      int port = defaultPort;
      if (m.group(2) != null) {
        port = m.group(2).length() > 5 ? -1 : Integer.parseInt(m.group(2));
        if (port < 1 || port > 65535) {
          throw new ConfigException(SourceConfig.HOST_CONFIG, value, "entry '" + entry + "' has port "
              + m.group(2) + ", outside 1-65535");
        }
      }
      Server server = new Server(m.group(1), port);
      if (out.contains(server)) {
        throw new ConfigException(SourceConfig.HOST_CONFIG, value, "names " + server + " twice");
      }
      out.add(server);
    }
    return new PostgresHosts(out);
  }

  public List<Server> servers() {
    return servers;
  }

  /** More than one server: the source connects only to a primary among them. */
  public boolean isList() {
    return servers.size() > 1;
  }

  /** The URL's host part, {@code h1:p1,h2:p2}, in the order given. */
  public String urlPart() {
    return servers.stream().map(Server::toString).collect(Collectors.joining(","));
  }

  @Override
  public String toString() {
    return urlPart();
  }

  /** Checks the value as a host list at configuration time (with the default port: ports are checked per entry). */
  static final class Validator implements ConfigDef.Validator {
    @Override
    public void ensureValid(String name, Object value) {
      parse((String) value, SourceConfig.PORT_DEFAULT);
    }

    @Override
    public String toString() {
      return "host, or host1,host2:port,... tried in order";
    }
  }
}
