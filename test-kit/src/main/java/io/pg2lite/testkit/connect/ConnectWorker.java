package io.pg2lite.testkit.connect;

import io.pg2lite.testkit.support.Await;
import java.net.URI;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.kafka.connect.cli.ConnectDistributed;
import org.apache.kafka.connect.runtime.Connect;
import org.apache.kafka.connect.runtime.distributed.DistributedHerder;

/**
 * A real Kafka Connect worker in distributed mode, in the test JVM, driven over its REST API like
 * any cluster. Distributed, not standalone: only the distributed herder supports exactly-once
 * source tasks ({@code exactly.once.source.support=enabled}), which pg2lite's source relies on.
 *
 * <p>Plugins are found with {@code plugin.discovery=service_load} (ServiceLoader manifests, about
 * ten times faster than the reflective scan). By default they come from the test classpath;
 * {@link Builder#pluginPath} points the worker at built plugin archives instead, for real
 * classloader isolation.
 */
public final class ConnectWorker implements AutoCloseable, WorkerHandle {
  private static final AtomicInteger WORKERS = new AtomicInteger();

  private final Connect<DistributedHerder> connect;
  private final ConnectRestClient rest;
  private final String groupId;

  private ConnectWorker(Connect<DistributedHerder> connect, String groupId) {
    this.connect = connect;
    this.groupId = groupId;
    this.rest = new ConnectRestClient(connect.rest().serverUrl());
  }

  public static Builder builder(String bootstrapServers) {
    return new Builder(bootstrapServers);
  }

  /** The worker's REST endpoint, e.g. {@code http://127.0.0.1:40123/}. */
  public URI restUrl() {
    return connect.rest().serverUrl();
  }

  @Override
  public ConnectRestClient rest() {
    return rest;
  }

  @Override
  public String groupId() {
    return groupId;
  }

  /** The worker runs in this JVM: its threads are this JVM's Connect threads. */
  @Override
  public String threads() {
    return ConnectThreads.ofThisJvm();
  }

  /**
   * Waits until no task thread of {@code connector} runs in this JVM (the worker runs in it).
   * REST shows a stopped connector without tasks as soon as its empty task list is written, while
   * an old task may still be finishing its last poll and Kafka transaction.
   */
  public void awaitTaskThreadsGone(String connector, Duration timeout) {
    String prefix = "task-thread-" + connector + "-";
    Await.until("the task threads of " + connector + " gone", timeout,
        () -> Thread.getAllStackTraces().keySet().stream().noneMatch(t -> t.isAlive() && t.getName().startsWith(prefix)));
  }

  /** Stops the worker: tasks are stopped, offsets flushed, the REST server closed. */
  @Override
  public void close() {
    connect.stop();
    connect.awaitStop();
  }

  /** Worker settings; anything not set gets a test-friendly default. */
  public static final class Builder {
    private final Map<String, String> props = new HashMap<>();

    private Builder(String bootstrapServers) {
      String group = "pg2lite-connect-" + WORKERS.incrementAndGet();
      props.put("bootstrap.servers", bootstrapServers);
      props.put("group.id", group);
      props.put("config.storage.topic", group + "-configs");
      props.put("offset.storage.topic", group + "-offsets");
      props.put("status.storage.topic", group + "-status");
      props.put("config.storage.replication.factor", "1");
      props.put("offset.storage.replication.factor", "1");
      props.put("status.storage.replication.factor", "1");
      props.put("offset.storage.partitions", "1");
      props.put("status.storage.partitions", "1");
      props.put("key.converter", "org.apache.kafka.connect.converters.ByteArrayConverter");
      props.put("value.converter", "org.apache.kafka.connect.converters.ByteArrayConverter");
      props.put("listeners", "http://127.0.0.1:0");
      props.put("exactly.once.source.support", "enabled");
      props.put("plugin.discovery", "service_load");
      props.put("offset.flush.interval.ms", "1000");
      // A restarted worker gets its tasks back at once instead of after the default 5 minutes.
      props.put("scheduled.rebalance.max.delay.ms", "0");
      // ${dir:<directory>:<file>} resolves to the file's content: how a PEM certificate reaches a setting.
      props.put("config.providers", "env,dir");
      props.put("config.providers.env.class", "org.apache.kafka.common.config.provider.EnvVarConfigProvider");
      props.put("config.providers.dir.class", "org.apache.kafka.common.config.provider.DirectoryConfigProvider");
    }

    /** Reuse another worker's group (and so its config, offset and status topics): a restart. */
    public Builder groupId(String groupId) {
      props.put("group.id", groupId);
      props.put("config.storage.topic", groupId + "-configs");
      props.put("offset.storage.topic", groupId + "-offsets");
      props.put("status.storage.topic", groupId + "-status");
      return this;
    }

    /** Loads plugins from these directories (isolated classloaders) instead of the classpath. */
    public Builder pluginPath(Path... dirs) {
      StringBuilder sb = new StringBuilder();
      for (Path d : dirs) {
        sb.append(sb.length() == 0 ? "" : ",").append(d.toAbsolutePath());
      }
      props.put("plugin.path", sb.toString());
      return this;
    }

    public Builder set(String key, String value) {
      props.put(key, value);
      return this;
    }

    /** Starts the worker and waits until its REST API answers. */
    public ConnectWorker start() {
      Connect<DistributedHerder> connect = new ConnectDistributed().startConnect(props);
      ConnectWorker worker = new ConnectWorker(connect, props.get("group.id"));
      worker.rest.awaitReady();
      return worker;
    }
  }
}
