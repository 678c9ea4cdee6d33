package io.pg2lite.sink.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pg2lite.testkit.TestStack;
import io.pg2lite.testkit.TestStackExtension;
import io.pg2lite.testkit.support.Await;
import java.lang.management.ManagementFactory;
import java.nio.file.Path;
import javax.management.MBeanServer;
import javax.management.ObjectName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The sink's MBean reports the replica's position, lag and counts; both tasks' attributes are in
 * the worker's plugin metrics too (Connect 4.1+).
 */
@ExtendWith(TestStackExtension.class)
class SinkMetricsIT {
  @Test
  void theMBeanFollowsTheReplica(TestStack stack) throws Exception {
    try (Pipeline p = new Pipeline(stack, "metrics_sink")) {
      p.db.execute("CREATE TABLE t (id int PRIMARY KEY)", "CREATE PUBLICATION metrics_sink_pub FOR TABLE t");
      p.startSource();
      Path replica = p.files.newFile("m");
      String sink = p.startSink("m", replica);
      p.db.execute("INSERT INTO t SELECT generate_series(1, 100)");
      p.awaitEqual(replica, "SELECT count(*) FROM t", "SELECT count(*) FROM t");
      MBeanServer server = ManagementFactory.getPlatformMBeanServer();
      ObjectName name = new ObjectName("io.pg2lite:type=sink,connector=" + ObjectName.quote(sink));
      // The rows may reach the replica first through the initial backfill, before the insert's
      // own transaction (begin, 100 inserts, commit) is applied: wait for that one.
      Await.until("the insert transaction applied", Pipeline.WAIT,
          () -> attrLong(server, name, "RecordsTotal") >= 103);
      // Heartbeats may still move the replica on: compare both sides in the same probe.
      Await.until("the MBean at the replica's watermark", Pipeline.WAIT, () -> {
        try {
          return Pipeline.replica(replica, "SELECT watermark FROM \"_pg2lite.state\"").get(0).get(0)
              .equals(attr(server, name, "ReplicaWatermark"));
        } catch (java.sql.SQLException e) {
          return false;
        }
      });
      assertTrue((Long) server.getAttribute(name, "TransactionsTotal") >= 2);
      long lag = (Long) server.getAttribute(name, "LagRecords");
      assertTrue(lag >= 0 && lag < 5, "caught up: lag " + lag);
      assertEquals(Long.parseLong(Pipeline.replica(replica, "SELECT kafka_offset FROM \"_pg2lite.state\"").get(0).get(0)),
          (Long) server.getAttribute(name, "ReplicaOffset"));

      // The worker's own registry (KIP-877 plugin metrics) holds the same attributes, which its JMX
      // reporter publishes under kafka.connect:type=plugins with the connector and task as tags.
      ObjectName sinkPlugin = pluginMetrics(server, sink);
      // Heartbeats move the replica on between two reads: equal in one probe at least.
      Await.until("the sink's offset alike in both views", Pipeline.WAIT,
          () -> attrLong(server, name, "ReplicaOffset") == attrLong(server, sinkPlugin, "replica-offset"));
      assertTrue((Long) server.getAttribute(sinkPlugin, "records-total") >= 103);
      ObjectName sourcePlugin = pluginMetrics(server, p.name + "-source");
      ObjectName source = new ObjectName("io.pg2lite:type=source,connector=" + ObjectName.quote(p.name + "-source") + ",*");
      ObjectName sourceBean = server.queryNames(source, null).iterator().next();
      Await.until("the source's transactions counted alike in both views", Pipeline.WAIT, () -> {
        long total = attrLong(server, sourcePlugin, "transactions-total");
        return total >= 2 && total <= attrLong(server, sourceBean, "TransactionsTotal");
      });
      assertEquals(server.getAttribute(sourceBean, "SlotStatus"), server.getAttribute(sourcePlugin, "slot-status"));
    }
  }

  /** The worker's JMX name of a connector's task 0 plugin metrics. */
  private static ObjectName pluginMetrics(MBeanServer server, String connector) throws Exception {
    ObjectName pattern = new ObjectName("kafka.connect:type=plugins,*");
    Await.until("plugin metrics of " + connector, Pipeline.WAIT, () -> server.queryNames(pattern, null).stream()
        .anyMatch(n -> connector.equals(n.getKeyProperty("connector")) && "0".equals(n.getKeyProperty("task"))));
    return server.queryNames(pattern, null).stream()
        .filter(n -> connector.equals(n.getKeyProperty("connector")) && "0".equals(n.getKeyProperty("task")))
        .findFirst().orElseThrow();
  }

  private static long attrLong(MBeanServer server, ObjectName name, String attribute) {
    try {
      return (Long) server.getAttribute(name, attribute);
    } catch (Exception e) {
      return -1;
    }
  }

  private static String attr(MBeanServer server, ObjectName name, String attribute) {
    try {
      return (String) server.getAttribute(name, attribute);
    } catch (Exception e) {
      return null;
    }
  }
}
