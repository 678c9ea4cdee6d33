package io.pg2lite.testkit.connect;

import java.lang.management.ManagementFactory;
import java.lang.management.ThreadInfo;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * Where Connect's threads are: the herder, the connector and task threads, the Kafka-based logs.
 * Their top frames say what each waits on; Connect's and pg2lite's frames below say why.
 */
final class ConnectThreads {
  private static final int FRAMES = 16;

  private ConnectThreads() {}

  static boolean isConnectThread(String name) {
    return name.startsWith("task-thread-") || name.startsWith("StartAndStopExecutor")
        || name.startsWith("DistributedHerder") || name.startsWith("connector-thread-")
        || name.contains("KafkaBasedLog");
  }

  /** This JVM's Connect threads (a worker in the test JVM). */
  static String ofThisJvm() {
    StringBuilder out = new StringBuilder();
    for (ThreadInfo t : ManagementFactory.getThreadMXBean().dumpAllThreads(false, false)) {
      if (isConnectThread(t.getThreadName())) {
        out.append("\n  ").append(t.getThreadName()).append(' ').append(t.getThreadState());
        StackTraceElement[] stack = t.getStackTrace();
        int shown = 0;
        for (int i = 0; i < stack.length && shown < FRAMES; i++) {
          String cls = stack[i].getClassName();
          if (i < 4 || cls.startsWith("org.apache.kafka.connect") || cls.startsWith("io.pg2lite")) {
            out.append("\n      at ").append(stack[i]);
            shown++;
          }
        }
      }
    }
    return out.toString();
  }

  /**
   * The Connect threads of another JVM, from {@code jcmd <pid> Thread.print}: each thread's
   * header and its first frames.
   */
  static String ofProcess(long pid) throws Exception {
    Process jcmd = new ProcessBuilder(java.nio.file.Path.of(System.getProperty("java.home"), "bin", "jcmd").toString(),
        Long.toString(pid), "Thread.print").redirectErrorStream(true).start();
    byte[] bytes = jcmd.getInputStream().readAllBytes();
    if (!jcmd.waitFor(30, TimeUnit.SECONDS)) {
      jcmd.destroyForcibly();
      return "(jcmd did not answer within 30 s)";
    }
    StringBuilder out = new StringBuilder();
    for (String block : new String(bytes, java.nio.charset.StandardCharsets.UTF_8).split("\n\n")) {
      List<String> lines = block.lines().toList();
      if (!lines.isEmpty() && lines.get(0).startsWith("\"") && isConnectThread(lines.get(0).substring(1))) {
        lines.stream().limit(FRAMES + 2).forEach(l -> out.append("\n  ").append(l));
      }
    }
    return out.toString();
  }
}
