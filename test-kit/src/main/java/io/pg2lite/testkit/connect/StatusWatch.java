package io.pg2lite.testkit.connect;

import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Supplier;

/**
 * Polls the connectors' status every 200 ms and remembers the first FAILED state seen: a fault
 * test's claim that no task ever FAILED, however briefly, while it healed.
 */
public final class StatusWatch implements AutoCloseable {
  /** Asked at each poll: the workers of the cluster may change (one killed, another started). */
  private final Supplier<ConnectRestClient> rest;
  private final List<String> names;
  private final AtomicBoolean stop = new AtomicBoolean();
  private final AtomicReference<String> failure = new AtomicReference<>();
  private final Map<String, String> lastTaskState = new TreeMap<>();
  private final AtomicLong polls = new AtomicLong();
  private final Thread thread;

  public StatusWatch(ConnectRestClient rest, String name, List<String> names) {
    this(() -> rest, name, names);
  }

  public StatusWatch(Supplier<ConnectRestClient> rest, String name, List<String> names) {
    this.rest = rest;
    this.names = names;
    thread = new Thread(this::run, name + "-status-watch");
    thread.setDaemon(true);
  }

  /** Starts polling; returns this watch. */
  public StatusWatch start() {
    thread.start();
    return this;
  }

  private void run() {
    while (!stop.get()) {
      for (String n : names) {
        try {
          ConnectorStatus s = rest.get().status(n);
          synchronized (lastTaskState) {
            lastTaskState.put(n, s.state() + "/" + s.tasks().stream().map(ConnectorStatus.TaskStatus::state).toList());
          }
          if (s.failure() != null) {
            failure.compareAndSet(null, s.failure());
          }
        } catch (RuntimeException e) {
          // REST unavailable for a moment (rebalance): try again at the next poll
        }
      }
      polls.incrementAndGet();
      try {
        Thread.sleep(200);
      } catch (InterruptedException e) {
        return;
      }
    }
  }

  /** The first FAILED state seen (with its trace), or null. */
  public String failure() {
    return failure.get();
  }

  public long polls() {
    return polls.get();
  }

  public String lastStates() {
    synchronized (lastTaskState) {
      return lastTaskState.toString();
    }
  }

  @Override
  public void close() throws InterruptedException {
    stop.set(true);
    thread.interrupt();
    thread.join(10_000);
  }
}
