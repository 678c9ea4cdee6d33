package io.pg2lite.sink.bench;

import io.pg2lite.testkit.support.Percentiles;
import io.pg2lite.testkit.postgres.PostgresServer;
import io.pg2lite.testkit.postgres.TestDatabase;
import java.nio.ByteBuffer;
import java.sql.Connection;
import java.sql.DriverManager;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Properties;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import org.postgresql.PGConnection;
import org.postgresql.PGProperty;
import org.postgresql.replication.PGReplicationStream;

/**
 * What a committed transaction costs Postgres alone before a logical replication client has it,
 * with nothing of pg2lite or Debezium: the floor under the source's "postgres commit → read" stage.
 * The test Postgres, a pgoutput slot and publication, and a pgjdbc replication stream read by a
 * loop that never sleeps (or, with {@code -Dpg2lite.bench.parkMicros=200}, parks as the source's
 * reader does between empty reads); a single-row INSERT on another connection every
 * {@code -Dpg2lite.bench.gapMs} (default 100). Prints COMMIT returned → the COMMIT message read,
 * and Postgres's commit time → read (the stage's own start), p50 and p99, over 200 transactions
 * after 200 uncounted: {@code java -cp <test classpath> io.pg2lite.sink.bench.PostgresFloorBench}.
 */
public final class PostgresFloorBench {
  /** pgoutput's COMMIT message: 'C', flags, commit LSN, end LSN, commit time (µs since 2000-01-01). */
  private static final byte COMMIT = 'C';
  private static final long POSTGRES_EPOCH_MICROS = 946_684_800_000_000L;

  public static void main(String[] args) throws Exception {
    long gapMs = Long.getLong("pg2lite.bench.gapMs", 100);
    long parkNanos = Long.getLong("pg2lite.bench.parkMicros", 0) * 1000;
    try (PostgresServer postgres = PostgresServer.start(); TestDatabase db = postgres.newDatabase("floor")) {
      db.execute("CREATE TABLE t (id bigint PRIMARY KEY, v text)");
      db.createPublication("floor_pub", "t");
      db.createLogicalSlot("floor_slot");
      Properties props = new Properties();
      PGProperty.USER.set(props, postgres.user());
      PGProperty.PASSWORD.set(props, postgres.password());
      PGProperty.REPLICATION.set(props, "database");
      PGProperty.ASSUME_MIN_SERVER_VERSION.set(props, "10");
      PGProperty.PREFER_QUERY_MODE.set(props, "simple");
      try (Connection replication = DriverManager.getConnection(db.jdbcUrl(), props);
          Connection writer = db.connect()) {
        PGReplicationStream stream = replication.unwrap(PGConnection.class).getReplicationAPI().replicationStream()
            .logical().withSlotName("floor_slot").withSlotOption("proto_version", 1)
            .withSlotOption("publication_names", "floor_pub").withStatusInterval(10, TimeUnit.SECONDS).start();
        List<Double> fromReturn = new ArrayList<>();
        List<Double> fromCommitTime = new ArrayList<>();
        for (int i = -200; i < 200; i++) {
          try (var s = writer.createStatement()) {
            s.execute("INSERT INTO t VALUES (" + (i + 1000) + ", 'x')");
          }
          long returned = System.nanoTime();
          long commitMicros;
          while (true) {
            ByteBuffer m = stream.readPending();
            if (m == null) {
              if (parkNanos > 0) {
                LockSupport.parkNanos(parkNanos); // as the source's reader waits
              } else {
                Thread.onSpinWait();
              }
              continue;
            }
            if (m.get(m.position()) == COMMIT) {
              commitMicros = m.getLong(m.position() + 18) + POSTGRES_EPOCH_MICROS;
              break;
            }
          }
          long read = System.nanoTime();
          java.time.Instant now = java.time.Instant.now();
          if (i >= 0) {
            fromReturn.add((read - returned) / 1e6);
            fromCommitTime.add((now.getEpochSecond() * 1_000_000L + now.getNano() / 1000 - commitMicros) / 1e3);
          }
          stream.setFlushedLSN(stream.getLastReceiveLSN());
          LockSupport.parkNanos(gapMs * 1_000_000);
        }
        Collections.sort(fromReturn);
        Collections.sort(fromCommitTime);
        System.out.printf("single-row INSERT, %d ms apart, read %s:%n", gapMs,
            parkNanos > 0 ? "with a " + parkNanos / 1000 + " µs park between empty reads" : "without sleeping");
        System.out.printf("  COMMIT returned -> COMMIT message read: p50 %.2f ms, p99 %.2f ms%n", Percentiles.of(fromReturn, 50),
            Percentiles.of(fromReturn, 99));
        System.out.printf("  Postgres commit time -> COMMIT message read: p50 %.2f ms, p99 %.2f ms%n",
            Percentiles.of(fromCommitTime, 50), Percentiles.of(fromCommitTime, 99));
      }
    }
  }

}
