package io.pg2lite.connect.metrics;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.reflect.Proxy;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.kafka.common.MetricName;
import org.apache.kafka.common.metrics.Metrics;
import org.apache.kafka.common.metrics.internals.PluginMetricsImpl;
import org.apache.kafka.connect.sink.SinkTaskContext;
import org.junit.jupiter.api.Test;

/**
 * The MBean attributes reach the worker's registry the way Connect 4.1+ hands it to a task
 * ({@code PluginMetricsImpl} over the worker's {@link Metrics}, tagged with connector and task),
 * read live, and leave it on close; a worker without {@code pluginMetrics()} gets nothing.
 */
class WorkerPluginMetricsTest {
  /** A task context as Connect 4.1+ makes one: only {@code pluginMetrics()} answers. */
  private static SinkTaskContext contextWith(PluginMetricsImpl registry) {
    return (SinkTaskContext) Proxy.newProxyInstance(SinkTaskContext.class.getClassLoader(),
        new Class<?>[] {SinkTaskContext.class},
        (proxy, method, args) -> method.getName().equals("pluginMetrics") ? registry : null);
  }

  /** A task context of a Connect before 4.1: the interface has no {@code pluginMetrics()}. */
  interface OldTaskContext {
    Map<String, String> configs();
  }

  @Test
  void everyAttributeIsAGaugeReadWhenAsked() throws Exception {
    try (Metrics worker = new Metrics(); TestFlow flow = new TestFlow()) {
      PluginMetricsImpl registry = new PluginMetricsImpl(worker, new LinkedHashMap<>(Map.of("connector", "c", "task", "0")));
      flow.publishThroughWorker(contextWith(registry), SinkTaskContext.class);
      List<String> names = flow.workerMetricNames().stream().map(MetricName::name).toList();
      assertTrue(names.containsAll(List.of("transactions-total", "records-total", "millis-behind-source",
          "commit-latency-p99-millis", "latency-stages", "replica-watermark")), names.toString());
      assertFalse(names.contains("reset-latency-stages"), "an operation is no metric: " + names);

      MetricName records = flow.workerMetricNames().stream().filter(n -> n.name().equals("records-total"))
          .findFirst().orElseThrow();
      assertEquals("plugins", records.group());
      assertEquals(Map.of("connector", "c", "task", "0"), records.tags());
      assertEquals(0L, worker.metric(records).metricValue());
      flow.count(5, 1);
      assertEquals(5L, worker.metric(records).metricValue(), "read when asked, not copied at registration");
      MetricName watermark = flow.workerMetricNames().stream().filter(n -> n.name().equals("replica-watermark"))
          .findFirst().orElseThrow();
      assertEquals("w1", worker.metric(watermark).metricValue());

      flow.close();
      assertNull(worker.metric(records), "closing the task's metrics removes them from the worker's registry");
    }
  }

  @Test
  void aWorkerBeforeKip877GetsTheMBeanOnly() {
    try (TestFlow flow = new TestFlow()) {
      flow.publishThroughWorker((OldTaskContext) () -> Map.of(), OldTaskContext.class);
      assertTrue(flow.workerMetricNames().isEmpty());
      flow.publishThroughWorker(null, SinkTaskContext.class);
      assertTrue(flow.workerMetricNames().isEmpty());
    }
  }

  @Test
  void attributeNamesBecomeKafkaStyleMetricNames() throws Exception {
    assertEquals("commit-latency-p50-millis",
        WorkerPluginMetrics.metricName(FlowMBean.class.getMethod("getCommitLatencyP50Millis")));
    assertEquals("transactions-per-second",
        WorkerPluginMetrics.metricName(FlowMBean.class.getMethod("getTransactionsPerSecond")));
  }

  /** The MBean interface of {@link TestFlow}: FlowMBean's attributes and one of its own. */
  public interface TestFlowMBean extends FlowMBean {
    String getReplicaWatermark();
  }

  static final class TestFlow extends FlowMetrics implements TestFlowMBean {
    TestFlow() {
      super(new StageTimes("total"));
    }

    void count(long records, long transactions) {
      counted(records, transactions);
    }

    @Override
    public String getReplicaWatermark() {
      return "w1";
    }
  }
}
