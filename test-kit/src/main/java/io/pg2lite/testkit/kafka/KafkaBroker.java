package io.pg2lite.testkit.kafka;

import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.common.test.KafkaClusterTestKit;
import org.apache.kafka.common.test.TestKitNodes;
import org.apache.kafka.server.common.MetadataVersion;

/**
 * A real single-node KRaft broker (combined broker + controller) in the test JVM, from Kafka's
 * own {@link KafkaClusterTestKit}, on the latest production metadata version.
 *
 * <p>Internal topics are set to one replica so transactions (exactly-once source, read_committed
 * consumers) work on one node.
 */
public final class KafkaBroker implements AutoCloseable {
  private final KafkaClusterTestKit cluster;
  private final Admin admin;
  private final AtomicInteger topics = new AtomicInteger();

  private KafkaBroker(KafkaClusterTestKit cluster) {
    this.cluster = cluster;
    Properties props = new Properties();
    props.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, cluster.bootstrapServers());
    this.admin = Admin.create(props);
  }

  public static KafkaBroker start() throws Exception {
    TestKitNodes nodes = new TestKitNodes.Builder()
        .setCombined(true)
        .setNumBrokerNodes(1)
        .setNumControllerNodes(1)
        .setBootstrapMetadataVersion(MetadataVersion.latestProduction())
        .build();
    KafkaClusterTestKit cluster = new KafkaClusterTestKit.Builder(nodes)
        .setConfigProp("offsets.topic.replication.factor", "1")
        .setConfigProp("offsets.topic.num.partitions", "1")
        .setConfigProp("transaction.state.log.replication.factor", "1")
        .setConfigProp("transaction.state.log.min.isr", "1")
        .setConfigProp("transaction.state.log.num.partitions", "1")
        .setConfigProp("group.initial.rebalance.delay.ms", "0")
        .setConfigProp("auto.create.topics.enable", "false")
        .build();
    try {
      cluster.format();
      cluster.startup();
      cluster.waitForReadyBrokers();
    } catch (Exception e) {
      cluster.close();
      throw e;
    }
    return new KafkaBroker(cluster);
  }

  public String bootstrapServers() {
    return cluster.bootstrapServers();
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

  @Override
  public void close() throws Exception {
    admin.close();
    cluster.close();
  }
}
