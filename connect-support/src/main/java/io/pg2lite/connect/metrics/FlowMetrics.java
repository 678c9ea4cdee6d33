package io.pg2lite.connect.metrics;

import io.pg2lite.connect.MBeans;
import io.pg2lite.connect.WindowedRates;
import java.time.Instant;
import java.util.List;
import javax.management.JMException;
import javax.management.ObjectName;
import org.apache.kafka.common.MetricName;
import org.slf4j.Logger;

/**
 * The counting both tasks' metrics share ({@link FlowMBean}), and their MBean's registration.
 * Counted by the task thread only, read by JMX threads: one writer, so volatile fields suffice.
 */
public abstract class FlowMetrics implements FlowMBean, AutoCloseable {
  private final WindowedRates rates = new WindowedRates();
  private final StageTimes stages;
  private volatile ObjectName name;
  private volatile WorkerPluginMetrics worker = WorkerPluginMetrics.NONE;
  private volatile long transactions;
  private volatile long records;
  private volatile long millisBehind = -1;

  /** @param stages the task's latency stages, the total last */
  protected FlowMetrics(StageTimes stages) {
    this.stages = stages;
  }

  /** Where the task records its stage times. */
  public final StageTimes stages() {
    return stages;
  }

  @Override
  public String getLatencyStages() {
    return stages.describe();
  }

  @Override
  public void resetLatencyStages() {
    stages.reset();
  }

  @Override
  public double getCommitLatencyP50Millis() {
    return stages.totalMillis(50);
  }

  @Override
  public double getCommitLatencyP99Millis() {
    return stages.totalMillis(99);
  }

  /** Records and transactions handled (the task thread). */
  protected final void counted(long newRecords, long newTransactions) {
    records += newRecords;
    transactions += newTransactions;
    rates.add(newRecords, newTransactions);
  }

  /** The last transaction handled committed upstream at {@code commitTime}. */
  protected final void lastCommittedAt(Instant commitTime) {
    millisBehind = Math.max(0, System.currentTimeMillis() - commitTime.toEpochMilli());
  }

  /**
   * Registers {@code metrics} as {@code objectName} (replacing a stale MBean of a previous task
   * instance); a name JMX refuses leaves the metrics working but unpublished, with a warning.
   */
  protected static <M extends FlowMetrics> M register(M metrics, String objectName, Logger log) {
    try {
      ObjectName n = new ObjectName(objectName);
      if (MBeans.register(metrics, n)) {
        ((FlowMetrics) metrics).name = n;
      } else {
        log.warn("Cannot register the metrics MBean {}", n);
      }
    } catch (JMException e) {
      log.warn("Cannot name the metrics MBean {}: {}", objectName, e.toString());
    }
    return metrics;
  }

  /**
   * Publishes this task's MBean attributes through the worker's plugin metrics as well (KIP-877,
   * Connect 4.1+; nothing on older workers): {@code context} is the task's {@code context},
   * {@code contextType} the Connect interface it implements.
   */
  public final void publishThroughWorker(Object context, Class<?> contextType) {
    worker.close();
    worker = WorkerPluginMetrics.publish(context, contextType, this, mbeanInterface());
  }

  /** The metric names {@link #publishThroughWorker} published (empty when the worker has no plugin metrics). */
  public final List<MetricName> workerMetricNames() {
    return worker.names();
  }

  /** The interface JMX publishes: the one this class implements whose name ends in MBean. */
  private Class<?> mbeanInterface() {
    for (Class<?> c = getClass(); c != null; c = c.getSuperclass()) {
      for (Class<?> i : c.getInterfaces()) {
        if (i.getSimpleName().endsWith("MBean")) {
          return i;
        }
      }
    }
    return FlowMBean.class;
  }

  @Override
  public long getTransactionsTotal() {
    return transactions;
  }

  @Override
  public long getRecordsTotal() {
    return records;
  }

  @Override
  public double getTransactionsPerSecond() {
    return rates.transactionsPerSecond();
  }

  @Override
  public double getRecordsPerSecond() {
    return rates.recordsPerSecond();
  }

  @Override
  public long getMillisBehindSource() {
    return millisBehind;
  }

  @Override
  public void close() {
    worker.close();
    MBeans.unregister(name);
  }
}
