package io.pg2lite.testkit;

import io.pg2lite.testkit.connect.ConnectWorker;
import io.pg2lite.testkit.kafka.KafkaBroker;
import io.pg2lite.testkit.postgres.PostgresServer;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The real servers integration tests run against, started at most once per test JVM and shared:
 * Postgres (logical replication), a KRaft broker and a distributed Connect worker.
 *
 * <p>Each server starts on first use, so a test that needs only Postgres does not pay for Kafka.
 * Start-up times are recorded and printed. Servers are stopped in reverse start order when the
 * JVM's test run ends ({@link TestStackExtension}). Tests isolate themselves by name (their own
 * database, topics, connector names), never by restarting the shared servers; a test that must
 * stop a worker starts its own with {@link #newConnectWorker()}.
 */
public final class TestStack implements AutoCloseable {
  private static TestStack shared;

  private final Map<String, Long> startupMillis = new LinkedHashMap<>();
  private final Deque<AutoCloseable> started = new ArrayDeque<>();
  private PostgresServer postgres;
  private KafkaBroker kafka;
  private ConnectWorker connect;

  private TestStack() {}

  /**
   * A stack of its own, for bench and demo commands outside JUnit; the caller closes it.
   * Tests use the shared one through {@link TestStackExtension}.
   */
  private boolean reportStartup = true;

  /** Leaves out the start-up timing line on close (for programs, like the quickstart, with their own output). */
  public TestStack quiet() {
    reportStartup = false;
    return this;
  }

  public static TestStack create() {
    return new TestStack();
  }

  /** The JVM-wide stack; servers start lazily. */
  static synchronized TestStack shared() {
    if (shared == null) {
      shared = new TestStack();
    }
    return shared;
  }

  public synchronized PostgresServer postgres() {
    if (postgres == null) {
      postgres = timed("postgres", PostgresServer::start);
    }
    return postgres;
  }

  public synchronized KafkaBroker kafka() {
    if (kafka == null) {
      kafka = timed("kafka", KafkaBroker::start);
    }
    return kafka;
  }

  /** The shared Connect worker (distributed mode, exactly-once source support enabled). */
  public synchronized ConnectWorker connect() {
    if (connect == null) {
      String bootstrap = kafka().bootstrapServers();
      connect = timed("connect", () -> ConnectWorker.builder(bootstrap).start());
    }
    return connect;
  }

  /**
   * A worker builder on the shared broker, for tests that stop or restart workers; the caller
   * starts and closes it.
   */
  public ConnectWorker.Builder newConnectWorker() {
    return ConnectWorker.builder(kafka().bootstrapServers());
  }

  /** Start-up time in ms of each server started so far, in start order. */
  public synchronized Map<String, Long> startupMillis() {
    return Map.copyOf(startupMillis);
  }

  private interface Starter<T> {
    T start() throws Exception;
  }

  private <T extends AutoCloseable> T timed(String name, Starter<T> starter) {
    long t0 = System.nanoTime();
    try {
      T server = starter.start();
      long ms = (System.nanoTime() - t0) / 1_000_000;
      startupMillis.put(name, ms);
      started.push(server);
      System.out.printf("pg2lite test stack: %s started in %.1f s%n", name, ms / 1000.0);
      return server;
    } catch (Exception e) {
      throw new IllegalStateException("could not start " + name + " for the test stack: " + e.getMessage(), e);
    }
  }

  @Override
  public synchronized void close() throws Exception {
    Exception first = null;
    while (!started.isEmpty()) {
      try {
        started.pop().close();
      } catch (Exception e) {
        if (first == null) {
          first = e;
        }
      }
    }
    long total = startupMillis.values().stream().mapToLong(Long::longValue).sum();
    if (total > 0 && reportStartup) {
      System.out.printf("pg2lite test stack: start-up %s, %.1f s in all%n", startupMillis, total / 1000.0);
    }
    postgres = null;
    kafka = null;
    connect = null;
    if (first != null) {
      throw first;
    }
  }
}
