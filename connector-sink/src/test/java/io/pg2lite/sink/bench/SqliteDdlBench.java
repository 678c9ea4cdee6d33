package io.pg2lite.sink.bench;

import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.Statement;

/**
 * What SQLite alone charges for a table and its key index as the schema grows: the term of a
 * replica's first start that grows faster than the table count (performance.md, "Publication
 * size"; ADR 0034). One transaction on a WAL file, as the sink applies a first start; prints the
 * milliseconds per table over each 1,000:
 * {@code java -cp <test classpath> io.pg2lite.sink.bench.SqliteDdlBench [tables, default 5000]}.
 */
public final class SqliteDdlBench {
  public static void main(String[] args) throws Exception {
    int tables = args.length > 0 ? Integer.parseInt(args[0]) : 5_000;
    Path dir = Files.createTempDirectory("pg2lite-ddl-bench");
    Path file = dir.resolve("ddl.db");
    try (Connection c = DriverManager.getConnection("jdbc:sqlite:" + file); Statement s = c.createStatement()) {
      s.execute("PRAGMA journal_mode=WAL");
      c.setAutoCommit(false);
      long start = System.nanoTime();
      long last = start;
      for (int i = 0; i < tables; i++) {
        s.execute("CREATE TABLE \"t_" + i + "\" (id INTEGER, name TEXT, qty INTEGER, _pg2lite_version TEXT)");
        s.execute("CREATE UNIQUE INDEX \"t_" + i + "_key\" ON \"t_" + i + "\" (id)");
        if ((i + 1) % 1_000 == 0) {
          long now = System.nanoTime();
          System.out.printf("tables %,6d: %.2f ms per table and index over the last 1,000%n", i + 1,
              (now - last) / 1e6 / 1_000);
          last = now;
        }
      }
      c.commit();
      System.out.printf("%,d tables and indexes in one transaction: %.2f s%n", tables, (System.nanoTime() - start) / 1e9);
    } finally {
      for (String suffix : new String[] {"", "-wal", "-shm"}) {
        Files.deleteIfExists(dir.resolve("ddl.db" + suffix));
      }
      Files.deleteIfExists(dir);
    }
  }
}
