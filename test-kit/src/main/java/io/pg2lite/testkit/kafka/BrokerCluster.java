package io.pg2lite.testkit.kafka;

import io.pg2lite.testkit.support.Await;
import io.pg2lite.testkit.support.Tmpfs;
import java.io.IOException;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Properties;
import java.util.Set;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.stream.Collectors;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewPartitionReassignment;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.common.ElectionType;
import org.apache.kafka.common.KafkaFuture;
import org.apache.kafka.common.Node;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.TopicPartitionInfo;
import org.apache.kafka.common.Uuid;

/**
 * A replicated Kafka cluster as production runs one: three KRaft nodes, each a broker and a
 * controller ({@link BrokerNode}: a JVM of its own, so a test can kill, stop or pause it), a
 * controller quorum of all three, replication factor 3 and {@code min.insync.replicas=2} for every
 * topic (the change log, Connect's internal topics, {@code __consumer_offsets} and
 * {@code __transaction_state}). Any one node may be down or hung and every write still commits;
 * with two down, writes wait (fewer in-sync replicas than the minimum) until one is back.
 *
 * <p>Only loopback addresses are used. Every wait is bounded and fails naming what it waited for.
 */
public final class BrokerCluster implements AutoCloseable {
  private static final long ADMIN_TIMEOUT_SECONDS = 30;
  private static final Duration READY = Duration.ofSeconds(120);

  private final Map<Integer, BrokerNode> nodes;
  /** Nodes whose log directory is a small filesystem of their own, by node id. */
  private final Map<Integer, Tmpfs> disks;
  private final String bootstrapServers;
  private final Admin admin;

  private BrokerCluster(Map<Integer, BrokerNode> nodes, Map<Integer, Tmpfs> disks) {
    this.nodes = nodes;
    this.disks = disks;
    this.bootstrapServers = nodes.values().stream().map(BrokerNode::address).collect(Collectors.joining(","));
    Properties props = new Properties();
    props.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers);
    props.put(AdminClientConfig.REQUEST_TIMEOUT_MS_CONFIG, "10000");
    props.put(AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, "20000");
    this.admin = Admin.create(props);
  }

  /**
   * Formats and starts {@code count} nodes under {@code workDir} ({@code node-<id>/}), and returns
   * once each is registered and unfenced. {@code brokerSettings} are added to every node's
   * {@code server.properties} (a smaller segment size for a disk test, say).
   */
  public static BrokerCluster start(Path workDir, int count, Map<String, String> brokerSettings) throws Exception {
    return start(workDir, count, brokerSettings, Map.of());
  }

  /**
   * As {@link #start(Path, int, Map)}, with the log directory of each node in {@code smallDisks}
   * on a tmpfs of the given size ({@code "256m"}): a disk that a test can fill up
   * ({@link #disk}). Mounting needs root.
   */
  public static BrokerCluster start(Path workDir, int count, Map<String, String> brokerSettings,
      Map<Integer, String> smallDisks) throws Exception {
    if (count < 3) {
      throw new IllegalArgumentException("a replicated cluster needs at least 3 nodes, not " + count);
    }
    Map<Integer, int[]> ports = new LinkedHashMap<>();
    for (int id = 1; id <= count; id++) {
      ports.put(id, new int[] {freePort(), freePort()});
    }
    String voters = ports.entrySet().stream()
        .map(e -> e.getKey() + "@127.0.0.1:" + e.getValue()[1]).collect(Collectors.joining(","));
    String clusterId = randomClusterId();
    List<String> java = List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
        "-Xmx512m", "-XX:+ExitOnOutOfMemoryError", "-Djava.awt.headless=true",
        "-cp", io.pg2lite.testkit.connect.WorkerProcess.classpath());
    Map<Integer, BrokerNode> nodes = new LinkedHashMap<>();
    Map<Integer, Tmpfs> disks = new LinkedHashMap<>();
    for (var e : ports.entrySet()) {
      int id = e.getKey();
      Path dir = Files.createDirectories(workDir.resolve("node-" + id));
      Files.createDirectories(dir.resolve("data"));
      if (smallDisks.containsKey(id)) {
        disks.put(id, Tmpfs.mount(dir.resolve("data"), smallDisks.get(id)));
      }
      Path props = dir.resolve("server.properties");
      Map<String, String> p = new LinkedHashMap<>();
      p.put("process.roles", "broker,controller");
      p.put("node.id", Integer.toString(id));
      p.put("controller.quorum.voters", voters);
      p.put("listeners", "PLAINTEXT://127.0.0.1:" + e.getValue()[0] + ",CONTROLLER://127.0.0.1:" + e.getValue()[1]);
      p.put("advertised.listeners", "PLAINTEXT://127.0.0.1:" + e.getValue()[0]);
      p.put("controller.listener.names", "CONTROLLER");
      p.put("inter.broker.listener.name", "PLAINTEXT");
      p.put("listener.security.protocol.map", "PLAINTEXT:PLAINTEXT,CONTROLLER:PLAINTEXT");
      p.put("log.dirs", dir.resolve("data").toString());
      p.put("default.replication.factor", "3");
      p.put("min.insync.replicas", "2");
      p.put("offsets.topic.replication.factor", "3");
      p.put("offsets.topic.num.partitions", "3");
      p.put("transaction.state.log.replication.factor", "3");
      p.put("transaction.state.log.min.isr", "2");
      p.put("transaction.state.log.num.partitions", "3");
      p.put("num.partitions", "1");
      p.put("auto.create.topics.enable", "false");
      p.put("group.initial.rebalance.delay.ms", "0");
      p.putAll(brokerSettings);
      Files.writeString(props, p.entrySet().stream().map(x -> x.getKey() + "=" + x.getValue())
          .collect(Collectors.joining("\n", "", "\n")));
      List<String> server = new ArrayList<>(java);
      server.add("kafka.Kafka");
      nodes.put(id, new BrokerNode(id, e.getValue()[0], e.getValue()[1], dir, props, server));
      format(java, clusterId, props, dir);
    }
    BrokerCluster cluster = new BrokerCluster(nodes, disks);
    try {
      for (BrokerNode n : nodes.values()) {
        n.launch();
      }
      for (BrokerNode n : nodes.values()) {
        cluster.awaitServing(n);
      }
    } catch (Exception e) {
      cluster.close();
      throw e;
    }
    return cluster;
  }

  /** {@code kafka-storage.sh format}: a static quorum needs no more than the cluster id and the config. */
  private static void format(List<String> java, String clusterId, Path props, Path dir)
      throws IOException, InterruptedException {
    List<String> cmd = new ArrayList<>(java);
    cmd.addAll(List.of("kafka.tools.StorageTool", "format", "--cluster-id", clusterId, "--config", props.toString()));
    Path out = dir.resolve("format.log");
    Process p = new ProcessBuilder(cmd).redirectErrorStream(true).redirectOutput(out.toFile()).start();
    if (!p.waitFor(120, TimeUnit.SECONDS) || p.exitValue() != 0) {
      p.destroyForcibly();
      throw new IllegalStateException("formatting " + dir + " failed: " + Files.readString(out));
    }
  }

  /**
   * A Kafka cluster id: Kafka's own random {@link Uuid}, which never starts with '-' (URL-safe
   * base64 can: the storage tool then reads the id as an option and fails, one start in 64).
   */
  private static String randomClusterId() {
    return Uuid.randomUuid().toString();
  }

  private static int freePort() throws IOException {
    try (ServerSocket s = new ServerSocket(0)) {
      return s.getLocalPort();
    }
  }

  /** Every node's broker listener, comma-separated: what clients and the Connect worker get. */
  public String bootstrapServers() {
    return bootstrapServers;
  }

  /** An admin client on the whole cluster, shared; do not close it. */
  public Admin admin() {
    return admin;
  }

  public BrokerNode node(int id) {
    BrokerNode n = nodes.get(id);
    if (n == null) {
      throw new IllegalArgumentException("no node " + id + "; nodes are " + nodes.keySet());
    }
    return n;
  }

  /** The small filesystem holding node {@code id}'s log directory (started with {@code smallDisks}). */
  public Tmpfs disk(int id) {
    Tmpfs d = disks.get(id);
    if (d == null) {
      throw new IllegalArgumentException("node " + id + " has no small disk; small disks: " + disks.keySet());
    }
    return d;
  }

  public Collection<BrokerNode> nodes() {
    return nodes.values();
  }

  /**
   * Worker settings for a distributed Connect worker on this cluster: its config, offset and
   * status topics in group {@code groupId}, replicated 3 times like everything else, and
   * exactly-once source support on.
   */
  public Properties workerProperties(String groupId) {
    Properties p = new Properties();
    p.setProperty("bootstrap.servers", bootstrapServers);
    p.setProperty("group.id", groupId);
    p.setProperty("config.storage.topic", groupId + "-configs");
    p.setProperty("offset.storage.topic", groupId + "-offsets");
    p.setProperty("status.storage.topic", groupId + "-status");
    p.setProperty("config.storage.replication.factor", "3");
    p.setProperty("offset.storage.replication.factor", "3");
    p.setProperty("status.storage.replication.factor", "3");
    p.setProperty("offset.storage.partitions", "1");
    p.setProperty("status.storage.partitions", "1");
    p.setProperty("key.converter", "org.apache.kafka.connect.converters.ByteArrayConverter");
    p.setProperty("value.converter", "org.apache.kafka.connect.converters.ByteArrayConverter");
    p.setProperty("exactly.once.source.support", "enabled");
    p.setProperty("plugin.discovery", "service_load");
    p.setProperty("offset.flush.interval.ms", "1000");
    p.setProperty("scheduled.rebalance.max.delay.ms", "0");
    return p;
  }

  /** Creates {@code topic}: {@code partitions} partitions, 3 replicas, the cluster's min.insync.replicas of 2. */
  public void createTopic(String topic, int partitions, Map<String, String> configs) throws Exception {
    get(admin.createTopics(List.of(new NewTopic(topic, partitions, (short) 3).configs(configs))).all());
  }

  /** The node leading {@code tp} now, or empty while it has none. */
  public Optional<Integer> leaderOf(TopicPartition tp) throws Exception {
    TopicPartitionInfo p = partition(tp);
    return p.leader() == null || p.leader().isEmpty() ? Optional.empty() : Optional.of(p.leader().id());
  }

  /** The in-sync replicas of {@code tp} now. */
  public Set<Integer> inSyncReplicas(TopicPartition tp) throws Exception {
    return partition(tp).isr().stream().map(Node::id).collect(Collectors.toSet());
  }

  private TopicPartitionInfo partition(TopicPartition tp) throws Exception {
    TopicDescription d = get(admin.describeTopics(List.of(tp.topic())).allTopicNames()).get(tp.topic());
    return d.partitions().get(tp.partition());
  }

  /** The node leading the KRaft controller quorum: the active controller. */
  public int activeController() throws Exception {
    return get(admin.describeMetadataQuorum().quorumInfo()).leaderId();
  }

  /**
   * Makes {@code leader} the leader of {@code tp} (a preferred-leader election after putting it
   * first in the replica list), so that a test can choose which node holds what: the change log's
   * leader away from the active controller, for one fault at a time. Returns once it leads.
   */
  public void moveLeader(TopicPartition tp, int leader) throws Exception {
    List<Integer> replicas = new ArrayList<>(partition(tp).replicas().stream().map(Node::id).toList());
    if (!replicas.remove(Integer.valueOf(leader))) {
      throw new IllegalArgumentException("node " + leader + " holds no replica of " + tp + ": " + replicas);
    }
    replicas.add(0, leader);
    get(admin.alterPartitionReassignments(Map.of(tp, Optional.of(new NewPartitionReassignment(replicas)))).all());
    Await.until("reassignment of " + tp + " done", READY,
        () -> answered(() -> get(admin.listPartitionReassignments(Set.of(tp)).reassignments()).isEmpty()));
    Await.until("node " + leader + " leading " + tp, READY, () -> answered(() -> {
      try {
        get(admin.electLeaders(ElectionType.PREFERRED, Set.of(tp)).all());
      } catch (ExecutionException e) {
        // ElectionNotNeeded once it leads; anything else: look again
      }
      return leaderOf(tp).equals(Optional.of(leader));
    }));
  }

  /**
   * Makes a node other than the active controller lead {@code tp} and returns it: a fault done to
   * the partition's leader is then one fault, not also the controller's.
   */
  public int moveLeaderOffTheController(TopicPartition tp) throws Exception {
    int controller = activeController();
    int leader = nodes.keySet().stream().filter(id -> id != controller).findFirst().orElseThrow();
    moveLeader(tp, leader);
    return leader;
  }

  /**
   * Starts a node stopped or killed before, on its ports and log directory, and returns once it
   * is registered and unfenced. It may still be catching up on its replicas: see
   * {@link #awaitFullyReplicated}.
   */
  public void start(BrokerNode node) throws Exception {
    node.launch();
    awaitServing(node);
  }

  /**
   * A rolling restart as operators do one: each node in turn stopped cleanly (SIGTERM), started
   * again, and the next one only once no partition is under-replicated, so that at most one node
   * is ever missing. Returns how long each node took, stop to fully replicated.
   */
  public List<Duration> rollingRestart() throws Exception {
    List<Duration> took = new ArrayList<>();
    for (BrokerNode n : nodes.values()) {
      long t0 = System.nanoTime();
      n.stop();
      start(n);
      awaitFullyReplicated(READY);
      took.add(Duration.ofNanos(System.nanoTime() - t0));
    }
    return took;
  }

  /** Waits until every node runs and every partition of every topic has all its replicas in sync. */
  public void awaitFullyReplicated(Duration timeout) {
    Await.until("every partition fully replicated", timeout, () -> answered(() -> underReplicated().isEmpty()));
  }

  /** Partitions with fewer in-sync replicas than replicas, or with no leader, now. */
  public List<TopicPartition> underReplicated() throws Exception {
    return partitionsWhere(p -> p.leader() == null || p.leader().isEmpty() || p.isr().size() < p.replicas().size());
  }

  /**
   * Moves the leadership of every partition, internal topics' included, back to its preferred
   * replica (the first of its replica list) and returns once each is led by it. The controller
   * does the same by itself after a node comes back, at its next imbalance check
   * ({@code leader.imbalance.check.interval.seconds}, 5 minutes), and an operator at once with
   * {@code kafka-leader-election --election-type preferred --all-topic-partitions}: a test that
   * restores the cluster after a fault calls this so that those leader moves, and the transaction
   * and group coordinators' moves with them, happen now and not minutes into the next phase.
   * Call it with every node in sync ({@link #awaitFullyReplicated}).
   */
  public void electPreferredLeaders(Duration timeout) {
    Await.until("every partition led by its preferred replica", timeout, () -> answered(() -> {
      try {
        get(admin.electLeaders(ElectionType.PREFERRED, null).all());
      } catch (ExecutionException e) {
        // ElectionNotNeeded for the partitions led by their preferred replica already; the rest: look below
      }
      return partitionsWhere(p -> p.leader() == null || p.leader().id() != p.replicas().get(0).id()).isEmpty();
    }));
  }

  private List<TopicPartition> partitionsWhere(java.util.function.Predicate<TopicPartitionInfo> condition)
      throws Exception {
    List<TopicPartition> out = new ArrayList<>();
    Set<String> topics = get(admin.listTopics(new org.apache.kafka.clients.admin.ListTopicsOptions().listInternal(true))
        .names());
    for (TopicDescription d : get(admin.describeTopics(topics).allTopicNames()).values()) {
      for (TopicPartitionInfo p : d.partitions()) {
        if (condition.test(p)) {
          out.add(new TopicPartition(d.name(), p.partition()));
        }
      }
    }
    return out;
  }

  private void awaitServing(BrokerNode node) {
    Await.until(node + " registered and serving", READY, () -> {
      if (!node.isAlive()) {
        throw new AssertionError(node + " exited; see " + node.dir());
      }
      if (!node.portAccepts()) {
        return false;
      }
      return answered(() -> get(admin.describeCluster().nodes()).stream().anyMatch(n -> n.id() == node.id()));
    });
  }

  /**
   * A condition asked of the cluster: false when the cluster does not answer this time (no
   * controller for a moment, a request timed out), so that the wait around it asks again.
   */
  private static boolean answered(java.util.concurrent.Callable<Boolean> condition) {
    try {
      return condition.call();
    } catch (ExecutionException | TimeoutException e) {
      return false;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted", e);
    } catch (Exception e) {
      throw new IllegalStateException(e);
    }
  }

  private static <T> T get(KafkaFuture<T> f) throws ExecutionException, InterruptedException, TimeoutException {
    return f.get(ADMIN_TIMEOUT_SECONDS, TimeUnit.SECONDS);
  }

  @Override
  public void close() throws Exception {
    admin.close(Duration.ofSeconds(5));
    for (BrokerNode n : nodes.values()) {
      if (n.isAlive()) {
        n.kill();
      }
    }
    for (Tmpfs d : disks.values()) {
      d.close();
    }
  }
}
