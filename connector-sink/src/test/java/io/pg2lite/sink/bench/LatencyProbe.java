package io.pg2lite.sink.bench;

import io.pg2lite.testkit.sqlite.SqliteFiles;
import io.pg2lite.testkit.workload.Ledger;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.locks.LockSupport;

/**
 * Commit → visible latency as a reader of the replica sees it. One thread commits a row of
 * {@code probe(seq)} in Postgres every {@code interval} (autocommit, a connection of its own) and
 * notes when the commit returned; another looks into the replica every {@link #LOOK} for sequence
 * numbers it has not seen yet, and takes each one's latency as the time of the look that found
 * it minus its commit. The look's period bounds the error: each figure is late by up to
 * {@link #LOOK} (half of it on average). A look is one indexed query on the replica's file in a
 * read transaction of its own, which never holds up the sink's writes (WAL mode).
 *
 * <p>Samples are collected by the minute in which the row became visible ({@link #drain}), each
 * with its commit and the look that found it, so that a caller can tell which ones a fault met; a
 * row not visible yet is pending ({@link #oldestPendingMillis}), so a stall shows at once even
 * before it ends.
 */
final class LatencyProbe implements AutoCloseable {
  static final String CREATE = "CREATE TABLE probe (seq bigint PRIMARY KEY, at timestamptz NOT NULL"
      + " DEFAULT clock_timestamp())";
  static final Duration LOOK = Duration.ofMillis(10);

  private final Ledger.Connections postgres;
  private final Path replica;
  private final long intervalNanos;
  /** Sequence number → System.nanoTime when its commit returned, until the replica shows it. */
  private final Map<Long, Long> pending = new ConcurrentHashMap<>();
  /** Samples since the last {@link #drain}; guarded by itself. */
  private final List<Sample> samples = new ArrayList<>();
  private final AtomicBoolean stop = new AtomicBoolean();
  private final Thread writer;
  private final Thread reader;

  LatencyProbe(Ledger.Connections postgres, Path replica, Duration interval) {
    this.postgres = postgres;
    this.replica = replica;
    this.intervalNanos = interval.toNanos();
    this.writer = new Thread(this::write, "soak-probe-writer");
    this.reader = new Thread(this::read, "soak-probe-reader");
    writer.setDaemon(true);
    reader.setDaemon(true);
  }

  LatencyProbe start() {
    writer.start();
    reader.start();
    return this;
  }

  /** One probe row: when its commit returned and when a look found it in the replica ({@link System#nanoTime}). */
  record Sample(long committedNanos, long visibleNanos) {
    double millis() {
      return (visibleNanos - committedNanos) / 1e6;
    }
  }

  /** The rows that became visible since the last call. */
  List<Sample> drain() {
    synchronized (samples) {
      List<Sample> out = new ArrayList<>(samples);
      samples.clear();
      return out;
    }
  }

  /** Probe rows a minute. */
  int perMinute() {
    return (int) (60_000_000_000L / intervalNanos);
  }

  /** The latencies of {@code samples}, in ms, ascending: what {@link io.pg2lite.testkit.support.Percentiles} takes. */
  static List<Double> sortedMillis(List<Sample> samples) {
    List<Double> out = new ArrayList<>(samples.size());
    samples.forEach(x -> out.add(x.millis()));
    Collections.sort(out);
    return out;
  }

  /** How long the oldest committed row not yet visible has been waiting, in ms (0: none). */
  long oldestPendingMillis() {
    long now = System.nanoTime();
    return pending.values().stream().mapToLong(t -> (now - t) / 1_000_000).max().orElse(0);
  }

  private void write() {
    long seq = 0;
    long next = System.nanoTime();
    Connection c = null;
    while (!stop.get()) {
      next += intervalNanos;
      LockSupport.parkNanos(next - System.nanoTime());
      next = Math.max(next, System.nanoTime() - intervalNanos); // after a stall: no burst
      try {
        if (c == null) {
          c = postgres.open();
        }
        try (PreparedStatement ps = c.prepareStatement("INSERT INTO probe (seq) VALUES (?)")) {
          ps.setLong(1, ++seq);
          ps.executeUpdate();
        }
        pending.put(seq, System.nanoTime());
      } catch (SQLException e) {
        c = closeQuietly(c); // a row of uncertain fate has no entry in pending: it is never counted
      }
    }
    closeQuietly(c);
  }

  private void read() {
    long seen = 0;
    Connection c = null;
    while (!stop.get()) {
      LockSupport.parkNanos(LOOK.toNanos());
      if (c == null && !Files.exists(replica)) {
        continue; // the sink has not created it yet: opening would create it
      }
      try {
        if (c == null) {
          c = SqliteFiles.open(replica);
        }
        try (PreparedStatement ps = c.prepareStatement("SELECT seq FROM probe WHERE seq > ? ORDER BY seq")) {
          ps.setLong(1, seen);
          try (ResultSet rs = ps.executeQuery()) {
            long now = System.nanoTime();
            while (rs.next()) {
              seen = rs.getLong(1);
              Long committed = pending.remove(seen);
              if (committed != null) {
                synchronized (samples) {
                  samples.add(new Sample(committed, now));
                }
              }
            }
          }
        }
      } catch (SQLException e) {
        if (!String.valueOf(e.getMessage()).contains("no such table")) {
          c = closeQuietly(c); // open again at the next look
        }
      }
    }
    closeQuietly(c);
  }

  private static Connection closeQuietly(Connection c) {
    try {
      if (c != null) {
        c.close();
      }
    } catch (SQLException ignored) {
      // gone already
    }
    return null;
  }

  @Override
  public void close() throws InterruptedException {
    stop.set(true);
    writer.join(10_000);
    reader.join(10_000);
  }
}
