package io.pg2lite.source.watch;

import io.pg2lite.connect.kafka.hanging.AdminTransactionLooks;
import io.pg2lite.source.Pg2liteSourceConnector;
import io.pg2lite.source.config.SourceConfig;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;
import java.util.function.Supplier;
import org.apache.kafka.connect.health.ConnectClusterState;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What the worker's watch looks at, read from the cluster before each look: for every pg2lite
 * source, its change log ({@code topic}) and its offsets topic (its {@code offsets.storage.topic},
 * else the worker's {@code offset.storage.topic}), and the transactional id its exactly-once task
 * writes them with. An exactly-once source's Kafka transaction spans both topics, and Connect reads
 * the offsets topic read_committed before it starts the source.
 *
 * <p>Connect hands out connector configs as stored, with config variables ({@code ${env:…}})
 * unresolved: a topic given that way cannot be watched, which is said once at INFO.
 */
final class WatchedSources implements Supplier<AdminTransactionLooks.Watched> {
  private static final Logger LOG = LoggerFactory.getLogger(WatchedSources.class);
  /** Connect's per-connector offsets topic, a setting of Connect's source connectors. */
  static final String OFFSETS_TOPIC_CONFIG = "offsets.storage.topic";

  private final ConnectClusterState cluster;
  private final WorkerSettings worker;
  private final Set<String> unresolvedSaid = new HashSet<>();

  WatchedSources(ConnectClusterState cluster, WorkerSettings worker) {
    this.cluster = cluster;
    this.worker = worker;
  }

  /** @throws org.apache.kafka.connect.errors.ConnectException when the worker cannot say (a rebalance): no look then */
  @Override
  public AdminTransactionLooks.Watched get() {
    Map<String, Map<String, String>> configs = new LinkedHashMap<>();
    for (String name : cluster.connectors()) {
      configs.put(name, cluster.connectorConfig(name));
    }
    return of(configs);
  }

  /** The topics and transactional ids of the pg2lite sources among {@code configs} (by connector name). */
  AdminTransactionLooks.Watched of(Map<String, Map<String, String>> configs) {
    Set<String> topics = new HashSet<>();
    Set<String> ids = new HashSet<>();
    configs.forEach((name, config) -> {
      if (!isPg2liteSource(config.get("connector.class"))) {
        return;
      }
      Map<String, String> watched = new HashMap<>();
      watched.put(SourceConfig.TOPIC_CONFIG, config.get(SourceConfig.TOPIC_CONFIG));
      String offsets = config.get(OFFSETS_TOPIC_CONFIG);
      watched.put(OFFSETS_TOPIC_CONFIG, offsets == null || offsets.isBlank() ? worker.offsetsTopic() : offsets);
      watched.forEach((key, topic) -> {
        if (topic == null || topic.isBlank()) {
          return;
        }
        if (topic.contains("${")) {
          if (unresolvedSaid.add(name + "/" + key)) {
            LOG.info("The hanging-transaction watch cannot watch {} of source {}: it is given as a config variable "
                + "({}), which only the connector's own worker resolves", key, name, topic);
          }
          return;
        }
        topics.add(topic.trim());
      });
      ids.add(worker.groupId() + "-" + name + "-0"); // Connect's id of the source's one exactly-once task
    });
    return new AdminTransactionLooks.Watched(topics, ids);
  }

  /** Connect accepts the class name, the simple name, and the simple name without "Connector". */
  static boolean isPg2liteSource(String connectorClass) {
    String simple = Pg2liteSourceConnector.class.getSimpleName();
    return connectorClass != null && (connectorClass.equals(Pg2liteSourceConnector.class.getName())
        || connectorClass.equals(simple) || connectorClass.equals(simple.replaceFirst("Connector$", "")));
  }
}
