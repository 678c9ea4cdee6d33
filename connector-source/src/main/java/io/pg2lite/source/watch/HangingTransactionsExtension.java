package io.pg2lite.source.watch;

import io.pg2lite.connect.MBeans;
import io.pg2lite.connect.PluginVersion;
import io.pg2lite.connect.kafka.hanging.AdminTransactionLooks;
import io.pg2lite.connect.kafka.hanging.HangingTransactionWatch;
import io.pg2lite.connect.kafka.hanging.LookGate;
import java.lang.reflect.Method;
import java.util.Map;
import javax.management.JMException;
import javax.management.ObjectName;
import org.apache.kafka.connect.rest.ConnectRestExtension;
import org.apache.kafka.connect.rest.ConnectRestExtensionContext;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Watches, from inside the worker, the change logs and offsets topics of the cluster's pg2lite
 * sources for hanging Kafka transactions ({@link HangingTransactionWatch}; what is watched:
 * {@link WatchedSources}), whatever state the connectors are in: a source whose offsets topic
 * holds one never reaches {@code start()} (ADR 0018, 0038). Enabled by the worker setting
 * {@code rest.extension.classes=io.pg2lite.source.watch.HangingTransactionsExtension}; aborts
 * only with {@value WorkerSettings#ABORT_CONFIG}{@code =true}.
 *
 * <p>Reports as the watch does (a WARN line with the runbook step), and through the MBean
 * {@code io.pg2lite:type=hanging-transactions,group=<group.id>} and
 * {@code GET /pg2lite/hanging-transactions}. It must never stop the worker: anything that fails in
 * {@link #register} leaves the worker running without the watch, and says so at WARN.
 */
public final class HangingTransactionsExtension implements ConnectRestExtension {
  private static final Logger LOG = LoggerFactory.getLogger(HangingTransactionsExtension.class);
  private WorkerSettings worker;
  private HangingTransactionWatch watch;
  private ObjectName mbean;

  @Override
  public String version() {
    return PluginVersion.get();
  }

  @Override
  public void configure(Map<String, ?> configs) {
    worker = WorkerSettings.of(configs);
  }

  @Override
  public void register(ConnectRestExtensionContext context) {
    try {
      HangingTransactionWatch.Settings settings = new HangingTransactionWatch.Settings("Connect worker of cluster "
          + worker.groupId(), worker.bootstrapServers(), worker.abort(), WorkerSettings.ABORT_CONFIG);
      watch = new HangingTransactionWatch(AdminTransactionLooks.create(settings.clientId(), worker.adminProps(),
          new WatchedSources(context.clusterState(), worker), LookGate.ALWAYS), settings).start();
      mbean = new ObjectName("io.pg2lite:type=hanging-transactions,group=" + ObjectName.quote(worker.groupId()));
      if (!MBeans.register(watch, mbean)) {
        LOG.warn("Cannot register the MBean {}: the hanging-transaction watch reports in the log only", mbean);
      }
      registerResource(context);
      LOG.info("pg2lite watches the change logs and offsets topics of the pg2lite sources of Connect cluster {} for "
          + "hanging Kafka transactions every {} s, {} (MBean {}, GET /pg2lite/hanging-transactions)",
          worker.groupId(), HangingTransactionWatch.INTERVAL.toSeconds(), worker.abort() ? "and aborts them ("
          + WorkerSettings.ABORT_CONFIG + "=true)" : "and reports them", mbean);
    } catch (JMException | ReflectiveOperationException | RuntimeException | LinkageError e) {
      LOG.warn("pg2lite's hanging-transaction watch could not start, and the worker runs without it: {}", e.toString());
      close();
    }
  }

  /**
   * Registers the REST resource with the worker's JAX-RS application, and the watch as the
   * application's property the resource reads. Connect 4.x serves jakarta.ws.rs, Connect 3.x
   * javax.ws.rs, and {@code configurable()} returns the one of its worker, so the calls go through
   * reflection and the resource is the matching one.
   */
  private void registerResource(ConnectRestExtensionContext context) throws ReflectiveOperationException {
    Method configurable = ConnectRestExtensionContext.class.getMethod("configurable");
    Class<?> type = configurable.getReturnType();
    Object application = configurable.invoke(context);
    type.getMethod("property", String.class, Object.class).invoke(application, HangingTransactionsJson.WATCH_PROPERTY,
        watch);
    type.getMethod("register", Class.class).invoke(application, type.getName().startsWith("jakarta.")
        ? JakartaHangingTransactionsResource.class : JavaxHangingTransactionsResource.class);
  }

  @Override
  public void close() {
    if (watch != null) {
      watch.close();
      watch = null;
    }
    MBeans.unregister(mbean);
    mbean = null;
  }
}
