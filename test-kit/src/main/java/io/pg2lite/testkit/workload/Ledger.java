package io.pg2lite.testkit.workload;

import io.pg2lite.testkit.postgres.TestDatabase;
import io.pg2lite.testkit.sqlite.SqliteFiles;
import io.pg2lite.testkit.support.Await;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;

/**
 * A workload whose replica can be audited for loss and duplication: table {@code acct(id, n)}
 * where transactions insert new ids and add 1 to the counter {@code n} of existing ones. A
 * transaction applied twice shows as a counter above Postgres', a lost one as a counter below it
 * or a missing id: {@link #audit} counts both, row by row, against what Postgres holds. The
 * fault tests and the soak bench write it.
 */
public final class Ledger {
  public static final String CREATE = "CREATE TABLE acct (id int PRIMARY KEY, n int NOT NULL, pad text)";
  public static final String PG_ROWS = "SELECT id, n, pad FROM acct ORDER BY id";
  public static final String LITE_ROWS = "SELECT id, n, pad FROM acct ORDER BY id";
  /** The fault tests' writer: 3 ms after each commit. */
  private static final Pacer PAUSE_3_MS = () -> Thread.sleep(3);

  /** Rows lost and rows applied twice (counter units and ids); both must be 0. */
  public record Audit(long lost, long twice, long rows) {
    @Override
    public String toString() {
      return rows + " rows: " + lost + " lost, " + twice + " applied twice";
    }
  }

  /** Opens a connection to write on. */
  public interface Connections {
    Connection open() throws SQLException;
  }

  /** What a writer does after each commit: pause, or wait for its turn at a given rate. */
  public interface Pacer {
    void afterCommit() throws InterruptedException;
  }

  private final TestDatabase db;
  private final Random random;
  private final Connections connections;
  private final AtomicLong nextId = new AtomicLong(1);
  private final AtomicLong transactions = new AtomicLong();
  /** Transactions abandoned on a failure (a connection cut by a Postgres restart). */
  private final AtomicLong failures = new AtomicLong();

  public Ledger(TestDatabase db, long seed) {
    this(db, seed, db::connect);
  }

  /** @param connections how to connect (a server-fault test gives short connect and socket timeouts) */
  public Ledger(TestDatabase db, long seed, Connections connections) {
    this.db = db;
    this.random = new Random(seed);
    this.connections = connections;
  }

  /**
   * Commits {@code count} small transactions (each: one new id, increments of up to three
   * earlier ones) on a connection of its own; a failed one (Postgres restarting) is abandoned
   * and the connection opened again, until {@code stop} is set.
   */
  public void write(int count, AtomicBoolean stop) throws InterruptedException {
    write(count, stop, () -> { });
  }

  /** Transactions committed so far. */
  public long transactions() {
    return transactions.get();
  }

  /** As {@link #write(int, AtomicBoolean)}, with {@code pacer} after each commit. */
  private void write(int count, AtomicBoolean stop, Pacer pacer) throws InterruptedException {
    Connection c = null;
    for (int t = 0; t < count && (stop == null || !stop.get()); ) {
      try {
        if (c == null) {
          c = connections.open();
          c.setAutoCommit(false);
        }
        try (Statement s = c.createStatement()) {
          long id = nextId.getAndIncrement();
          s.execute("INSERT INTO acct VALUES (" + id + ", 0, 'p" + id + "')");
          for (int k = random.nextInt(4); k > 0; k--) {
            s.execute("UPDATE acct SET n = n + 1 WHERE id = " + (1 + random.nextInt((int) id)));
          }
        }
        c.commit();
        transactions.incrementAndGet();
        t++;
        pacer.afterCommit();
      } catch (SQLException e) {
        failures.incrementAndGet();
        try {
          if (c != null) {
            c.close();
          }
        } catch (SQLException ignored) {
          // the connection is gone already
        }
        c = null;
        Thread.sleep(200);
      }
    }
    if (c != null) {
      try {
        c.close();
      } catch (SQLException ignored) {
        // closing a dead connection
      }
    }
  }

  /**
   * Writes on a thread of its own, a transaction every few milliseconds, through faults, until
   * the returned writer is closed: the writer of the server-fault tests.
   */
  public Background writeInBackground(String name) {
    return writeInBackground(name, PAUSE_3_MS);
  }

  /** As {@link #writeInBackground(String)}, paced by {@code pacer} (a rate, say) instead. */
  public Background writeInBackground(String name, Pacer pacer) {
    Background b = new Background(name, pacer);
    b.thread.start();
    return b;
  }

  /** A background writer ({@link #writeInBackground}). */
  public final class Background implements AutoCloseable {
    private final AtomicBoolean stop = new AtomicBoolean();
    private final AtomicReference<Throwable> error = new AtomicReference<>();
    private final Thread thread;

    private Background(String name, Pacer pacer) {
      thread = new Thread(() -> {
        try {
          write(Integer.MAX_VALUE, stop, pacer);
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
        } catch (RuntimeException e) {
          error.set(e);
        }
      }, name + "-writer");
      thread.setDaemon(true);
    }

    public long commits() {
      return transactions.get();
    }

    public long failures() {
      return failures.get();
    }

    /** The id the writer's next transaction inserts: every id from it on is written after this call. */
    public long nextId() {
      return nextId.get();
    }

    /** One large transaction of {@code rows} new ids on this writer's ledger, beside its small ones. */
    public void writeLarge(int rows) throws SQLException {
      Ledger.this.writeLarge(rows);
    }

    /** Waits until {@code more} further transactions have committed. */
    public void awaitCommits(long more, Duration timeout) {
      long target = commits() + more;
      Await.until(more + " more writer commits", timeout, () -> commits() >= target);
    }

    /** Stops and joins the writer; fails if it died of anything but an SQLException. */
    @Override
    public void close() throws InterruptedException {
      stop.set(true);
      thread.join(60_000);
      if (error.get() != null) {
        throw new AssertionError("the writer died", error.get());
      }
    }
  }

  /** One transaction inserting {@code rows} new ids: a large transaction for crash tests. */
  public void writeLarge(int rows) throws SQLException {
    long first = nextId.getAndAdd(rows);
    db.execute("INSERT INTO acct SELECT g, 0, repeat('x', 100) FROM generate_series(" + first + ", "
        + (first + rows - 1) + ") g");
    transactions.incrementAndGet();
  }

  /** Compares the replica's rows with Postgres', counting lost and twice-applied rows. */
  public Audit audit(Path replica) throws SQLException {
    return compare(counters(db.connect()), counters(SqliteFiles.open(replica)));
  }

  /**
   * Counts what the replica lost and applied twice, from the counter {@code n} of each id in
   * Postgres ({@code pg}) and in the replica ({@code lite}): a missing id is lost with all its
   * increments, an extra one applied twice, and each counter below or above Postgres' counts its
   * difference.
   */
  public static Audit compare(Map<Long, Long> pg, Map<Long, Long> lite) {
    long lost = 0;
    long twice = 0;
    for (Map.Entry<Long, Long> e : pg.entrySet()) {
      Long r = lite.get(e.getKey());
      if (r == null) {
        lost += 1 + e.getValue();
      } else {
        lost += Math.max(0, e.getValue() - r);
        twice += Math.max(0, r - e.getValue());
      }
    }
    for (Map.Entry<Long, Long> e : lite.entrySet()) {
      if (!pg.containsKey(e.getKey())) {
        twice += 1 + e.getValue();
      }
    }
    return new Audit(lost, twice, pg.size());
  }

  private static Map<Long, Long> counters(Connection c) throws SQLException {
    try (c; Statement s = c.createStatement(); ResultSet rs = s.executeQuery("SELECT id, n FROM acct")) {
      Map<Long, Long> out = new HashMap<>();
      while (rs.next()) {
        out.put(rs.getLong(1), rs.getLong(2));
      }
      return out;
    }
  }
}
