package io.pg2lite.source.watch;

import io.pg2lite.connect.config.KafkaClientSettings;
import java.util.Map;

/**
 * What the extension reads from the worker's config ({@code configure}): the cluster's group and
 * servers, the worker's own client settings, its offsets topic, and whether to abort.
 *
 * @param groupId the Connect cluster ({@code group.id}); exactly-once source tasks write with the
 *     transactional id {@code <group.id>-<connector>-<task>}
 * @param bootstrapServers the worker's, named in the runbook command
 * @param adminProps the worker's Admin client settings ({@link KafkaClientSettings#workerAdminProps})
 * @param offsetsTopic the worker's {@code offset.storage.topic}, a source's offsets topic unless it sets its own
 * @param abort {@value #ABORT_CONFIG}
 */
record WorkerSettings(String groupId, String bootstrapServers, Map<String, Object> adminProps, String offsetsTopic,
    boolean abort) {
  /** The worker setting that makes the watch abort what it reports (default false). */
  static final String ABORT_CONFIG = "pg2lite.hanging.transactions.abort";

  static WorkerSettings of(Map<String, ?> worker) {
    return new WorkerSettings(text(worker, "group.id"), text(worker, "bootstrap.servers"),
        KafkaClientSettings.workerAdminProps(worker), text(worker, "offset.storage.topic"),
        Boolean.parseBoolean(text(worker, ABORT_CONFIG).trim()));
  }

  private static String text(Map<String, ?> worker, String key) {
    Object v = worker.get(key);
    return v == null ? "" : v instanceof java.util.List<?> l ? String.join(",", l.stream().map(String::valueOf)
        .toList()) : String.valueOf(v);
  }
}
