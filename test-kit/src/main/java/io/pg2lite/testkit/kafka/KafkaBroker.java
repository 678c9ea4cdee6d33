package io.pg2lite.testkit.kafka;

import io.pg2lite.testkit.support.BenchSettings;
import io.pg2lite.testkit.support.DirectoryTrees;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Stream;
import kafka.server.BrokerServer;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.common.test.KafkaClusterTestKit;
import org.apache.kafka.common.test.TestKitNode;
import org.apache.kafka.common.test.TestKitNodes;
import org.apache.kafka.server.common.MetadataVersion;

/**
 * A real single-node KRaft broker (combined broker + controller) in the test JVM, from Kafka's
 * own {@link KafkaClusterTestKit}, on the latest production metadata version.
 *
 * <p>Internal topics are set to one replica so transactions (exactly-once source, read_committed
 * consumers) work on one node.
 *
 * <p>A fault test takes a broker of its own from {@link #startDedicated()}; only that one can be
 * stopped and started again ({@link #stopBroker()}, {@link #startBroker()}), so no test can take
 * the shared broker of {@code TestStack} away from the others. The restart is in-process and
 * keeps the port: the test kit binds each listener's port before the first start and, on a later
 * start, binds the same port again (its {@code PreboundSocketFactoryManager}), which is what lets
 * clients created before the stop, and anything configured with {@link #bootstrapServers()},
 * reconnect by themselves.
 */
public final class KafkaBroker implements AutoCloseable {
  private final KafkaClusterTestKit cluster;
  private final boolean dedicated;
  /** Read once: the port stays the same, and the cluster cannot name it while the broker is down. */
  private final String bootstrapServers;
  private final Admin admin;
  private final AtomicInteger topics = new AtomicInteger();

  private KafkaBroker(KafkaClusterTestKit cluster, boolean dedicated) {
    this.cluster = cluster;
    this.dedicated = dedicated;
    this.bootstrapServers = cluster.bootstrapServers();
    Properties props = new Properties();
    props.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers);
    this.admin = Admin.create(props);
  }

  public static KafkaBroker start() throws Exception {
    return start(false);
  }

  /**
   * Starts a broker that belongs to the calling test alone, so the test may stop and start it
   * ({@link #stopBroker()}, {@link #startBroker()}); the caller closes it. It costs a broker
   * start (3–4 s warm), which is why only fault tests should take one.
   */
  public static KafkaBroker startDedicated() throws Exception {
    return start(true);
  }

  private static KafkaBroker start(boolean dedicated) throws Exception {
    TestKitNodes nodes = new TestKitNodes.Builder()
        .setCombined(true)
        .setNumBrokerNodes(1)
        .setNumControllerNodes(1)
        .setBootstrapMetadataVersion(MetadataVersion.latestProduction())
        .build();
    KafkaClusterTestKit.Builder builder = new KafkaClusterTestKit.Builder(nodes)
        .setConfigProp("offsets.topic.replication.factor", "1")
        .setConfigProp("offsets.topic.num.partitions", "1")
        .setConfigProp("transaction.state.log.replication.factor", "1")
        .setConfigProp("transaction.state.log.min.isr", "1")
        .setConfigProp("transaction.state.log.num.partitions", "1")
        .setConfigProp("group.initial.rebalance.delay.ms", "0")
        .setConfigProp("auto.create.topics.enable", "false");
    // Benches try broker settings: -Dpg2lite.bench.broker.add.partitions.to.txn.retry.backoff.ms=1
    BenchSettings.withPrefix("pg2lite.bench.broker.").forEach(builder::setConfigProp);
    KafkaClusterTestKit cluster = builder.build();
    try {
      cluster.format();
      cluster.startup();
      cluster.waitForReadyBrokers();
    } catch (Exception e) {
      cluster.close();
      throw e;
    }
    return new KafkaBroker(cluster, dedicated);
  }

  public String bootstrapServers() {
    return bootstrapServers;
  }

  /** An admin client shared by the tests; do not close it. */
  public Admin admin() {
    return admin;
  }

  /** A topic name no other test uses: {@code <prefix>-<n>}. */
  public String uniqueTopicName(String prefix) {
    return prefix + "-" + topics.incrementAndGet();
  }

  /** Creates {@code topic} with one replica and {@code partitions} partitions. */
  public void createTopic(String topic, int partitions, Map<String, String> configs)
      throws ExecutionException, InterruptedException {
    admin.createTopics(List.of(new NewTopic(topic, partitions, (short) 1).configs(configs))).all().get();
  }

  public void createTopic(String topic, int partitions) throws ExecutionException, InterruptedException {
    createTopic(topic, partitions, Map.of());
  }

  /**
   * Shuts the broker down as a clean stop would (controlled shutdown, logs flushed and closed);
   * the KRaft controller of the combined node keeps running, which clients cannot tell apart
   * from a stopped node since they only talk to the broker listener. Returns once the listener
   * port refuses connections: from then on sends, polls and admin calls of every client wait
   * and retry (or time out, if their timeouts are shorter than the outage). Topics, their
   * records, transaction state and committed consumer offsets stay in the log directories.
   */
  public void stopBroker() throws IOException, InterruptedException {
    BrokerServer broker = broker();
    broker.shutdown();
    broker.awaitShutdown();
    long deadline = System.nanoTime() + 10_000_000_000L;
    while (portAccepts()) {
      if (System.nanoTime() > deadline) {
        throw new IllegalStateException("broker port still accepts connections after shutdown: " + bootstrapServers());
      }
      Thread.sleep(50);
    }
  }

  /**
   * Starts the broker stopped by {@link #stopBroker()} again, on the same port and log
   * directories. It reloads its logs, and the transaction and group coordinators reload their
   * state from {@code __transaction_state} and {@code __consumer_offsets}: committed transactions
   * stay committed, open ones are aborted or completed as after a real restart, and groups resume
   * from their committed offsets. Returns once the broker is registered and unfenced, i.e. serves
   * clients again; coordinators may still be loading for a moment, which clients retry.
   *
   * <p>Right after a stop this takes about 8 s: the restarted broker is a new incarnation, and the
   * controller refuses its registration ({@code DUPLICATE_BROKER_REGISTRATION}) until the old
   * one's session ({@code broker.session.timeout.ms}, 9 s) has expired, exactly as for a real
   * broker restarted at once. After a longer outage it takes well under a second. The timeout is
   * left at Kafka's default so that a slow test machine does not fence a healthy broker.
   */
  public void startBroker() throws Exception {
    BrokerServer broker = broker();
    if (!broker.isShutdown()) {
      throw new IllegalStateException("the broker is running; stop it first");
    }
    broker.startup();
    cluster.waitForReadyBrokers();
    if (!portAccepts()) {
      throw new IllegalStateException("broker started but its port refuses connections: " + bootstrapServers());
    }
  }

  /**
   * Makes the transaction coordinator forget every transaction, as after the loss of
   * {@code __transaction_state}: stops the broker, deletes that topic's partitions from its log
   * directories and starts it again (an empty one is created in their place). A transaction still
   * open on a partition of another topic is then <b>hanging</b> (KIP-664): the partition holds it
   * open and pins its last stable offset, and its coordinator knows nothing of it, so nothing
   * will ever write its marker. That is the state a broker restart left now and then in the
   * broker-outage test (ADR 0018), made on purpose. Takes about 10 s (see {@link #startBroker()}).
   */
  public void forgetTransactions() throws Exception {
    stopBroker();
    for (TestKitNode node : cluster.nodes().brokerNodes().values()) {
      for (String dir : node.logDataDirectories()) {
        try (Stream<Path> partitions = Files.list(Path.of(dir))) {
          for (Path p : partitions.toList()) {
            if (p.getFileName().toString().startsWith("__transaction_state-")) {
              DirectoryTrees.delete(p);
            }
          }
        }
      }
    }
    startBroker();
  }

  /** False between {@link #stopBroker()} and {@link #startBroker()}. */
  public boolean isBrokerRunning() {
    return !dedicated || !broker().isShutdown();
  }

  private BrokerServer broker() {
    if (!dedicated) {
      throw new IllegalStateException("only a broker from KafkaBroker.startDedicated() can be stopped or started:"
          + " this one may be shared with other tests");
    }
    return cluster.brokers().values().iterator().next();
  }

  private boolean portAccepts() {
    String hostPort = bootstrapServers().split(",")[0];
    int colon = hostPort.lastIndexOf(':');
    try (Socket s = new Socket()) {
      s.connect(new InetSocketAddress(hostPort.substring(0, colon), Integer.parseInt(hostPort.substring(colon + 1))), 1000);
      return true;
    } catch (IOException e) {
      return false;
    }
  }

  @Override
  public void close() throws Exception {
    admin.close();
    cluster.close();
  }
}
