package io.pg2lite.connect.config;

import java.util.HashMap;
import java.util.Map;
import java.util.Set;
import org.apache.kafka.clients.admin.AdminClientConfig;

/**
 * The connectors' own Kafka clients (admin, consumer) are configured by {@code kafka.*} keys:
 * {@code kafka.bootstrap.servers} and any client setting under the prefix
 * ({@code kafka.security.protocol}, ...). They do not inherit the worker's client settings.
 */
public final class KafkaClientSettings {
  public static final String PREFIX = "kafka.";
  public static final String BOOTSTRAP_CONFIG = PREFIX + "bootstrap.servers";

  private KafkaClientSettings() {}

  /** The {@code kafka.*} keys without the prefix, bootstrap servers apart (a setting of its own). */
  public static Map<String, Object> clientProps(Map<String, String> props) {
    Map<String, Object> out = new HashMap<>();
    props.forEach((k, v) -> {
      if (k.startsWith(PREFIX) && !k.equals(BOOTSTRAP_CONFIG)) {
        out.put(k.substring(PREFIX.length()), v);
      }
    });
    return Map.copyOf(out);
  }

  /**
   * The settings of an Admin client of the worker itself, from the worker's config, as Connect
   * builds its own: every Admin setting among the worker's (bootstrap servers, {@code
   * security.protocol}, {@code sasl.*}, {@code ssl.*}, ...), then the worker's {@code admin.*}
   * overrides.
   */
  public static Map<String, Object> workerAdminProps(Map<String, ?> worker) {
    Set<String> known = AdminClientConfig.configNames();
    Map<String, Object> out = new HashMap<>();
    worker.forEach((k, v) -> {
      if (v != null && known.contains(k)) {
        out.put(k, v);
      }
    });
    worker.forEach((k, v) -> {
      if (v != null && k.startsWith("admin.") && known.contains(k.substring("admin.".length()))) {
        out.put(k.substring("admin.".length()), v);
      }
    });
    return Map.copyOf(out);
  }
}
