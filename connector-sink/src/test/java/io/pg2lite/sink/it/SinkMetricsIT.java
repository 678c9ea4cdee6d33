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

/** The sink's MBean reports the replica's position, lag and counts. */
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
    }
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
