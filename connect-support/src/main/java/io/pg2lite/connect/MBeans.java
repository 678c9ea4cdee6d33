package io.pg2lite.connect;

import java.lang.management.ManagementFactory;
import javax.management.InstanceAlreadyExistsException;
import javax.management.JMException;
import javax.management.MBeanServer;
import javax.management.ObjectName;

/**
 * Registers a task's MBean in the platform server. A restarted task registers under the same name
 * as its predecessor, whose MBean may still be there: the new one replaces it.
 */
public final class MBeans {
  private MBeans() {}

  /** Registers {@code mbean}; false (and nothing registered) when JMX refuses it. */
  public static boolean register(Object mbean, ObjectName name) {
    MBeanServer server = ManagementFactory.getPlatformMBeanServer();
    try {
      try {
        server.registerMBean(mbean, name);
      } catch (InstanceAlreadyExistsException e) {
        server.unregisterMBean(name);
        server.registerMBean(mbean, name);
      }
      return true;
    } catch (JMException e) {
      return false;
    }
  }

  /** Unregisters {@code name} if it is registered; null is ignored. */
  public static void unregister(ObjectName name) {
    if (name == null) {
      return;
    }
    try {
      ManagementFactory.getPlatformMBeanServer().unregisterMBean(name);
    } catch (JMException e) {
      // already gone
    }
  }
}
