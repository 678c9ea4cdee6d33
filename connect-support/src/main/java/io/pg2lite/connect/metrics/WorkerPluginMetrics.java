package io.pg2lite.connect.metrics;

import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import org.apache.kafka.common.MetricName;
import org.apache.kafka.common.metrics.Gauge;
import org.apache.kafka.common.metrics.MetricValueProvider;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A task's MBean attributes published a second time, through the worker's own metrics registry
 * (KIP-877 plugin metrics, Connect 4.1+), so that whatever reporters the worker runs
 * ({@code metric.reporters}: JMX under {@code kafka.connect:type=plugins,connector=…,task=…},
 * OpenTelemetry, a Prometheus bridge) export them beside Connect's own task metrics.
 *
 * <p>Each getter of the MBean interface becomes a gauge named in Kafka's style:
 * {@code getCommitLatencyP99Millis} is {@code commit-latency-p99-millis}. A gauge reads the MBean
 * attribute when the reporter asks, so both views always agree and nothing is counted twice.
 *
 * <p>The plugins are compiled against the oldest Connect API they support, which has no
 * {@code pluginMetrics()}: it is looked up by reflection on the task context's public interface.
 * On a worker without it (Connect 3.x, 4.0) nothing is published here and the MBean
 * ({@code io.pg2lite:type=…}) remains the one view. Connect closes a task's plugin metrics when the
 * task stops; {@link #close()} removes them earlier, when the task's metrics close.
 */
public final class WorkerPluginMetrics implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(WorkerPluginMetrics.class);
  /** Nothing published: a worker before KIP-877, or one whose registry refused the gauges. */
  public static final WorkerPluginMetrics NONE = new WorkerPluginMetrics(null, null, List.of());

  private final Object registry;
  private final Method remove;
  private final List<MetricName> names;

  private WorkerPluginMetrics(Object registry, Method remove, List<MetricName> names) {
    this.registry = registry;
    this.remove = remove;
    this.names = names;
  }

  /**
   * Publishes every attribute of {@code mbeanInterface}, read from {@code metrics}, through
   * {@code context.pluginMetrics()} when {@code contextType} (the Connect interface the context
   * implements: {@code SourceTaskContext}, {@code SinkTaskContext}) has that method at run time.
   * Never throws: metrics must not stop a task.
   */
  public static WorkerPluginMetrics publish(Object context, Class<?> contextType, Object metrics,
      Class<?> mbeanInterface) {
    if (context == null) {
      return NONE;
    }
    Method pluginMetrics;
    try {
      pluginMetrics = contextType.getMethod("pluginMetrics");
    } catch (NoSuchMethodException e) {
      LOG.debug("This worker's {} has no pluginMetrics() (Connect before 4.1): the metrics are in JMX only",
          contextType.getSimpleName());
      return NONE;
    }
    try {
      Object registry = pluginMetrics.invoke(context);
      if (registry == null) {
        return NONE; // a context made by hand (a test's, an embedding's) without a registry
      }
      Class<?> registryType = pluginMetrics.getReturnType();
      Method metricName = registryType.getMethod("metricName", String.class, String.class, LinkedHashMap.class);
      Method add = registryType.getMethod("addMetric", MetricName.class, MetricValueProvider.class);
      Method remove = registryType.getMethod("removeMetric", MetricName.class);
      List<MetricName> names = new ArrayList<>();
      WorkerPluginMetrics published = new WorkerPluginMetrics(registry, remove, names);
      for (Method getter : attributes(mbeanInterface)) {
        String name = metricName(getter);
        MetricName n = (MetricName) metricName.invoke(registry, name,
            "pg2lite: the " + getter.getName().substring(3) + " attribute of " + mbeanInterface.getSimpleName(),
            new LinkedHashMap<String, String>());
        Gauge<Object> gauge = (config, now) -> read(getter, metrics);
        add.invoke(registry, n, gauge);
        names.add(n);
      }
      LOG.info("The task's {} metrics are also in the worker's registry (plugin metrics: group plugins, tagged "
          + "connector and task), for its metric reporters", names.size());
      return published;
    } catch (ReflectiveOperationException | RuntimeException e) {
      Throwable cause = e instanceof InvocationTargetException t && t.getCause() != null ? t.getCause() : e;
      LOG.warn("Cannot publish the task's metrics through the worker's plugin metrics; they stay in JMX: {}",
          cause.toString());
      return NONE;
    }
  }

  /** The interface's readable attributes, in a stable order: public no-argument getters. */
  static List<Method> attributes(Class<?> mbeanInterface) {
    return Arrays.stream(mbeanInterface.getMethods())
        .filter(m -> m.getParameterCount() == 0 && m.getName().startsWith("get") && m.getName().length() > 3
            && m.getReturnType() != void.class && !Modifier.isStatic(m.getModifiers()))
        .sorted(Comparator.comparing(Method::getName)).toList();
  }

  /** {@code getCommitLatencyP99Millis} → {@code commit-latency-p99-millis}. */
  static String metricName(Method getter) {
    String attribute = getter.getName().substring(3);
    StringBuilder sb = new StringBuilder();
    for (int i = 0; i < attribute.length(); i++) {
      char c = attribute.charAt(i);
      if (Character.isUpperCase(c) && i > 0) {
        sb.append('-');
      }
      sb.append(Character.toLowerCase(c));
    }
    return sb.toString().toLowerCase(Locale.ROOT);
  }

  private static Object read(Method getter, Object metrics) {
    try {
      return getter.invoke(metrics);
    } catch (IllegalAccessException | InvocationTargetException e) {
      return null; // a reporter asking for a broken attribute gets nothing, as JMX would say
    }
  }

  /** The metric names published (empty when none were). */
  public List<MetricName> names() {
    return List.copyOf(names);
  }

  /** Removes the gauges from the worker's registry; a registry Connect already closed is left alone. */
  @Override
  public void close() {
    if (registry == null) {
      return;
    }
    for (MetricName n : names) {
      try {
        remove.invoke(registry, n);
      } catch (ReflectiveOperationException | RuntimeException e) {
        break; // closed with its task by Connect: its metrics are gone already
      }
    }
    names.clear();
  }
}
