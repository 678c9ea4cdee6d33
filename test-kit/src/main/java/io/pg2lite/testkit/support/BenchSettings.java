package io.pg2lite.testkit.support;

import java.lang.management.ManagementFactory;
import java.util.Map;
import java.util.TreeMap;

/** What benches read from their own JVM: settings to try, given as system properties, and CPU time. */
public final class BenchSettings {
  private BenchSettings() {}

  /**
   * The system properties whose names start with {@code prefix}, the prefix taken off: e.g.
   * {@code -Dpg2lite.source.exactly.once.commit.interval.ms=1000} with prefix
   * {@code pg2lite.source.} gives {@code exactly.once.commit.interval.ms=1000}.
   */
  public static Map<String, String> withPrefix(String prefix) {
    Map<String, String> out = new TreeMap<>();
    for (String key : System.getProperties().stringPropertyNames()) {
      if (key.startsWith(prefix)) {
        out.put(key.substring(prefix.length()), System.getProperty(key));
      }
    }
    return out;
  }

  /** CPU time of this JVM so far, all threads (GC and JIT included), in nanoseconds. */
  public static long processCpuNanos() {
    return ((com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean())
        .getProcessCpuTime();
  }
}
