package io.pg2lite.source.bench;

import io.pg2lite.source.postgres.PostgresCatalog;
import io.pg2lite.testkit.postgres.PostgresServer;
import io.pg2lite.testkit.postgres.TestDatabase;
import java.sql.Connection;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;

/**
 * What replication-stream mode's catalog reads cost (ADR 0027), against the number of published
 * tables: the catalog checker's fingerprint (every {@code schema.check.interval.ms}), the
 * published schema it reads when the fingerprint moved, the lock-free read of tables by OID the
 * stream's thread makes for a Relation message it cannot match, and a whole catalog check
 * (REPEATABLE READ, snapshot, read, logical message). Each size gets a database of N tables of ten
 * columns, a primary key and an index each, in one publication. The first timing of each query is
 * cold (the server's caches and the JIT), then the median of {@code -Dcheck.rounds} warm ones; "size"
 * is what the read returned: the fingerprint's characters, the tables read, the bytes of a check's schema.
 *
 * <pre>
 * mvn -B -o -q -pl connector-source -am test-compile -DskipTests
 * mvn -B -o -q -pl connector-source exec:java -Dexec.classpathScope=test \
 *     -Dexec.mainClass=io.pg2lite.source.bench.CatalogCheckBench [-Dexec.args="100 500 2000"] [-Dcheck.rounds=5]
 * </pre>
 */
public final class CatalogCheckBench {
  private static final int ROUNDS = Integer.getInteger("check.rounds", 5);

  /** A query under test: it runs, and returns something whose size is printed. */
  @FunctionalInterface
  private interface Query {
    int run() throws Exception;
  }

  public static void main(String[] args) throws Exception {
    List<Integer> sizes = new ArrayList<>();
    for (String a : args.length == 0 ? new String[] {"100", "500", "2000"} : args) {
      sizes.add(Integer.parseInt(a));
    }
    try (PostgresServer server = PostgresServer.start(PostgresServer.EXPECTED_MAJOR_VERSION)) {
      System.out.printf("catalog-check bench on %s, %d warm rounds%n", server.version(), ROUNDS);
      System.out.printf("%-7s %-22s %10s %10s %12s%n", "tables", "query", "cold ms", "warm ms", "size");
      for (int n : sizes) {
        try (TestDatabase db = server.newDatabase("checks_" + n); Connection c = db.connect()) {
          create(c, n);
          PostgresCatalog catalog = new PostgresCatalog(c);
          List<Long> oids = new ArrayList<>();
          catalog.publishedSchemaQueried("bench").tables().forEach(t -> oids.add(t.oid()));
          time(n, "fingerprint", () -> catalog.catalogFingerprint().length());
          time(n, "published schema", () -> catalog.publishedSchemaQueried("bench").tables().size());
          time(n, "tables by OID", () -> catalog.tables("bench", oids, 0xFFFFFFFFL).tables().size());
          time(n, "catalog check written", () -> catalog.writeCatalogCheck("bench", null).schema().length());
        }
      }
    }
  }

  private static void create(Connection c, int n) throws Exception {
    try (Statement s = c.createStatement()) {
      s.execute("DO $$ BEGIN FOR i IN 1.." + n + " LOOP EXECUTE format('CREATE TABLE t%s (id int PRIMARY KEY, "
          + "a text, b int, c timestamptz DEFAULT now(), d numeric(10, 2), e text, f bool, g int, h text, k int)', i); "
          + "EXECUTE format('CREATE INDEX t%s_b ON t%s (b)', i, i); END LOOP; END $$");
      StringBuilder pub = new StringBuilder("CREATE PUBLICATION bench FOR TABLE ");
      for (int i = 1; i <= n; i++) {
        pub.append(i == 1 ? "" : ", ").append("t").append(i);
      }
      s.execute(pub.toString());
      s.execute("ANALYZE");
    }
  }

  private static void time(int tables, String name, Query q) throws Exception {
    long t0 = System.nanoTime();
    int size = q.run();
    double cold = (System.nanoTime() - t0) / 1e6;
    double[] warm = new double[ROUNDS];
    for (int i = 0; i < ROUNDS; i++) {
      long t = System.nanoTime();
      q.run();
      warm[i] = (System.nanoTime() - t) / 1e6;
    }
    java.util.Arrays.sort(warm);
    System.out.printf("%-7d %-22s %10.1f %10.1f %12d%n", tables, name, cold, warm[ROUNDS / 2], size);
  }

  private CatalogCheckBench() {}
}
