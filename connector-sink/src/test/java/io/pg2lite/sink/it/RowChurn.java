package io.pg2lite.sink.it;

import java.sql.Connection;
import java.sql.Statement;
import java.util.Random;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;

/** Random updates, deletes and inserts on {@code table} (id, v, n) in small transactions until stopped. */
final class RowChurn implements AutoCloseable {
  private final AtomicBoolean stop = new AtomicBoolean();
  final AtomicLong transactions = new AtomicLong();
  private final Thread thread;
  private volatile Exception failure;

  RowChurn(Pipeline p, String table, int maxId, long pauseMillis) {
    thread = new Thread(() -> {
      Random random = new Random(maxId);
      int nextId = maxId + 1;
      try (Connection c = p.db.connect(); Statement s = c.createStatement()) {
        c.setAutoCommit(false);
        while (!stop.get()) {
          for (int o = 0; o < 3; o++) {
            int id = 1 + random.nextInt(maxId);
            switch (random.nextInt(3)) {
              case 0 -> s.execute("UPDATE " + table + " SET n = n + 1, v = 'u" + random.nextInt(1000)
                  + "' WHERE id = " + id);
              case 1 -> s.execute("DELETE FROM " + table + " WHERE id = " + id);
              default -> s.execute("INSERT INTO " + table + " (id, v, n) VALUES (" + nextId++ + ", 'new', 0)");
            }
          }
          c.commit();
          transactions.incrementAndGet();
          Thread.sleep(pauseMillis);
        }
      } catch (Exception e) {
        failure = e;
      }
    }, "writer-" + table);
    thread.start();
  }

  @Override
  public void close() throws Exception {
    stop.set(true);
    thread.join();
    if (failure != null) {
      throw failure;
    }
  }
}
