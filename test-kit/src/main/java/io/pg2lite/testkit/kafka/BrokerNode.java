package io.pg2lite.testkit.kafka;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * One node of a {@link BrokerCluster}: a Kafka server (broker and KRaft controller in one
 * process, as {@code process.roles=broker,controller}) in a JVM of its own, so that a test can do
 * to it what happens to real brokers: SIGKILL ({@link #kill}), a clean stop ({@link #stop}),
 * SIGSTOP and SIGCONT ({@link #pause}, {@link #resume}: a broker that hangs, a long GC pause, a
 * VM frozen by its host). Its ports and log directory stay the same across restarts, as a real
 * broker's do, so clients configured with the cluster's bootstrap servers find it again.
 */
public final class BrokerNode {
  private final int id;
  private final int brokerPort;
  private final int controllerPort;
  private final Path dir;
  private final Path properties;
  private final List<String> command;
  private Process process;
  private int starts;

  BrokerNode(int id, int brokerPort, int controllerPort, Path dir, Path properties, List<String> command) {
    this.id = id;
    this.brokerPort = brokerPort;
    this.controllerPort = controllerPort;
    this.dir = dir;
    this.properties = properties;
    this.command = command;
  }

  public int id() {
    return id;
  }

  /** {@code 127.0.0.1:port} of the broker listener. */
  public String address() {
    return "127.0.0.1:" + brokerPort;
  }

  int controllerPort() {
    return controllerPort;
  }

  /** The node's directory: {@code data/} is its log directory, {@code server-N.log} its output per start. */
  public Path dir() {
    return dir;
  }

  public Path logDir() {
    return dir.resolve("data");
  }

  Path properties() {
    return properties;
  }

  /** Starts the process (it must not be running); {@link BrokerCluster} waits for it to serve. */
  synchronized void launch() throws IOException {
    if (process != null && process.isAlive()) {
      throw new IllegalStateException("node " + id + " is running");
    }
    List<String> cmd = new ArrayList<>(command);
    cmd.add(properties.toString());
    starts++;
    process = new ProcessBuilder(cmd).redirectErrorStream(true)
        .redirectOutput(dir.resolve("server-" + starts + ".log").toFile()).start();
    Process p = process;
    Runtime.getRuntime().addShutdownHook(new Thread(p::destroyForcibly, "pg2lite-broker-reaper-" + id));
  }

  /** The output of the node's latest start (its log lines). */
  public synchronized String lastLog() throws IOException {
    return java.nio.file.Files.readString(dir.resolve("server-" + starts + ".log"));
  }

  /** Whether the process is running (a paused one is). */
  public synchronized boolean isAlive() {
    return process != null && process.isAlive();
  }

  public synchronized long pid() {
    if (process == null) {
      throw new IllegalStateException("node " + id + " never started");
    }
    return process.pid();
  }

  /**
   * SIGKILL, as a crash, the OOM killer or a lost machine: no controlled shutdown, nothing
   * flushed; leadership moves only once the controller fences the node (its session, 9 s). Returns
   * once the process is gone.
   */
  public void kill() throws InterruptedException {
    Process p = current();
    resumeQuietly(p); // a paused process dies on SIGKILL too, but this keeps kill() after pause() simple
    p.destroyForcibly();
    if (!p.waitFor(30, TimeUnit.SECONDS)) {
      throw new IllegalStateException("node " + id + " still alive 30 s after SIGKILL");
    }
  }

  /**
   * SIGTERM: Kafka's controlled shutdown (leaderships handed over first, logs flushed and closed),
   * as a rolling restart does. Returns once the process has exited.
   */
  public void stop() throws InterruptedException {
    Process p = current();
    p.destroy();
    if (!p.waitFor(120, TimeUnit.SECONDS)) {
      p.destroyForcibly();
      throw new IllegalStateException("node " + id + " did not stop within 120 s of SIGTERM; killed it");
    }
  }

  /**
   * SIGSTOP: the process stays, its sockets stay open, and it answers nothing. Clients and peers
   * see requests time out rather than connections refused, which is what a hung broker does.
   */
  public void pause() throws IOException, InterruptedException {
    signal(current(), "STOP");
  }

  /** SIGCONT after {@link #pause}. */
  public void resume() throws IOException, InterruptedException {
    signal(current(), "CONT");
  }

  /** Whether the broker port accepts a TCP connection now. */
  public boolean portAccepts() {
    try (Socket s = new Socket()) {
      s.connect(new InetSocketAddress("127.0.0.1", brokerPort), 1000);
      return true;
    } catch (IOException e) {
      return false;
    }
  }

  private synchronized Process current() {
    if (process == null || !process.isAlive()) {
      throw new IllegalStateException("node " + id + " is not running");
    }
    return process;
  }

  private static void signal(Process p, String signal) throws IOException, InterruptedException {
    Process kill = new ProcessBuilder("kill", "-" + signal, Long.toString(p.pid())).inheritIO().start();
    if (!kill.waitFor(10, TimeUnit.SECONDS) || kill.exitValue() != 0) {
      throw new IOException("kill -" + signal + " " + p.pid() + " failed");
    }
  }

  private static void resumeQuietly(Process p) {
    try {
      signal(p, "CONT");
    } catch (IOException e) {
      // gone already: destroyForcibly below has nothing left to do
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  @Override
  public String toString() {
    return "node " + id + " (" + address() + ")";
  }
}
