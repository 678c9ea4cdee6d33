package io.pg2lite.sink.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pg2lite.connect.hold.TestHolds;
import io.pg2lite.protocol.message.ChangeLogHeaders;
import io.pg2lite.testkit.TestStack;
import io.pg2lite.testkit.TestStackExtension;
import io.pg2lite.testkit.connect.ConnectRestClient;
import io.pg2lite.testkit.connect.WorkerProcess;
import io.pg2lite.testkit.kafka.TopicReader;
import io.pg2lite.testkit.postgres.TestDatabase;
import io.pg2lite.testkit.sqlite.SqliteFiles;
import io.pg2lite.testkit.support.Await;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.common.header.Header;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Issue 33, values of any size: rows with 2 and 30 MB values (256 MB too with
 * {@code -Dpg2lite.large.sizes=2,30,256}) of text, bytea, jsonb and a text array go through a
 * broker and topic with Kafka's default limits (1 MiB records), copied by the initial backfill,
 * inserted, updated, and moved by a key update, on one worker running both connectors; the replica ends equal to Postgres, value by value
 * (SHA-256 of each stored value against Postgres' own text of it). And a worker killed (SIGKILL)
 * while a split row is half written: the new worker writes the row again whole, nothing lost or
 * twice.
 */
@ExtendWith(TestStackExtension.class)
class LargeValuesIT {
  private static final Duration WAIT = Duration.ofSeconds(600);
  /**
   * The worker's heap: Connect's default (connect-distributed.sh's -Xmx2G), enough for the suite's
   * sizes; a value is held whole a few times over (docs/performance.md, "Large values"), so the
   * 256 MB run gives the worker 4 GB.
   */
  private static final String HEAP = System.getProperty("pg2lite.large.heap", "2g");
  private static final int MB = 1_000_000;
  /**
   * Value sizes in MB: 2 and 30 in the suite; {@code -Dpg2lite.large.sizes=2,30,256} adds the
   * 256 MB values (about ten minutes on two cores; the README lists the command).
   */
  private static final int[] SIZES = java.util.Arrays.stream(System.getProperty("pg2lite.large.sizes", "2,30")
      .split(",")).mapToInt(v -> Integer.parseInt(v.trim()) * MB).toArray();
  private static final String[] COLUMNS = {"body", "data", "meta", "tags"};
  private static final String CREATE = "CREATE TABLE doc (id int PRIMARY KEY, body text, data bytea, meta jsonb, "
      + "tags text[])";

  /** The SQL of a value of about {@code bytes} for {@code column}, varied by {@code seed}. */
  private static String value(String column, int bytes, int seed) {
    String md5 = "md5('" + seed + "')";
    return switch (column) {
      case "body" -> "repeat(" + md5 + ", " + bytes / 32 + ")";
      case "data" -> "decode(repeat(" + md5 + ", " + bytes / 16 + "), 'hex')";
      case "meta" -> "jsonb_build_object('k', repeat(" + md5 + ", " + (bytes - 32) / 32 + "), 'n', " + seed + ")";
      case "tags" -> "array_fill(" + md5 + " || repeat('y', 968), ARRAY[" + bytes / 1000 + "])";
      default -> throw new IllegalArgumentException(column);
    };
  }

  /** One row per size and column, ids from {@code firstId}: each row holds one large value. */
  private static void insertRows(TestDatabase db, int firstId, int seed) throws SQLException {
    int id = firstId;
    for (int size : SIZES) {
      for (String c : COLUMNS) {
        db.execute("INSERT INTO doc (id, " + c + ") VALUES (" + id + ", " + value(c, size, seed + id) + ")");
        id++;
      }
    }
  }

  /** Gives each row from {@code firstId} a new value of a slightly other size, one transaction per row. */
  private static void updateRows(TestDatabase db, int firstId, int seed) throws SQLException {
    int id = firstId;
    for (int size : SIZES) {
      for (String c : COLUMNS) {
        db.execute("UPDATE doc SET " + c + " = " + value(c, size + 64_000, seed + id) + " WHERE id = " + id);
        id++;
      }
    }
  }

  /** Per row: id, then each column's stored size and SHA-256 ("-" for null), as Postgres prints the values. */
  private static List<String> postgresDigests(TestDatabase db) throws SQLException {
    String sql = "SELECT id::text || ' ' || "
        + "coalesce(octet_length(body) || ':' || encode(sha256(convert_to(body, 'UTF8')), 'hex'), '-') || ' ' || "
        + "coalesce(octet_length(data) || ':' || encode(sha256(data), 'hex'), '-') || ' ' || "
        + "coalesce(octet_length(meta::text) || ':' || encode(sha256(convert_to(meta::text, 'UTF8')), 'hex'), '-') "
        + "|| ' ' || coalesce(octet_length(to_json(tags)::text) || ':' "
        + "|| encode(sha256(convert_to(to_json(tags)::text, 'UTF8')), 'hex'), '-') FROM doc ORDER BY id";
    return db.queryColumn(sql);
  }

  /** The same digests of the replica's stored values (text as UTF-8, bytea as the BLOB, arrays as JSON text). */
  private static List<String> replicaDigests(Path replica) throws Exception {
    List<String> out = new ArrayList<>();
    try (Connection c = DriverManager.getConnection("jdbc:sqlite:" + replica); Statement s = c.createStatement();
        ResultSet rs = s.executeQuery("SELECT id, CAST(body AS BLOB), data, CAST(meta AS BLOB), CAST(tags AS BLOB) "
            + "FROM doc ORDER BY id")) {
      while (rs.next()) {
        StringBuilder line = new StringBuilder(Integer.toString(rs.getInt(1)));
        for (int i = 2; i <= 5; i++) {
          byte[] v = rs.getBytes(i);
          line.append(' ').append(v == null ? "-" : v.length + ":"
              + HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(v)));
        }
        out.add(line.toString());
      }
    }
    return out;
  }

  /** Sizes only: cheap enough to poll while the replica catches up. */
  private static List<String> postgresSizes(TestDatabase db) throws SQLException {
    return db.queryColumn("SELECT id || ' ' || coalesce(octet_length(body), -1) || ' ' || coalesce(octet_length(data), "
        + "-1) || ' ' || coalesce(octet_length(meta::text), -1) || ' ' || coalesce(octet_length(to_json(tags)::text), "
        + "-1) FROM doc ORDER BY id");
  }

  private static List<String> replicaSizes(Path replica) {
    try {
      return Pipeline.replica(replica, "SELECT id || ' ' || coalesce(length(CAST(body AS BLOB)), -1) || ' ' || "
          + "coalesce(length(data), -1) || ' ' || coalesce(length(CAST(meta AS BLOB)), -1) || ' ' || "
          + "coalesce(length(CAST(tags AS BLOB)), -1) FROM doc ORDER BY id").stream().map(r -> r.get(0)).toList();
    } catch (SQLException e) {
      return List.of(e.getMessage()); // the table is not there yet
    }
  }

  private static void awaitEqual(TestDatabase db, Path replica, String when) throws Exception {
    List<String> expected = postgresSizes(db);
    Await.until("replica sizes equal to Postgres " + when, WAIT, () -> expected.equals(replicaSizes(replica)));
    assertEquals(postgresDigests(db), replicaDigests(replica), "every value equal " + when);
  }

  @Test
  void valuesOf2To256MbAreCopiedInsertedUpdatedAndMovedThroughDefaultKafkaLimits(TestStack stack) throws Exception {
    String name = "large_values";
    Path work = Files.createTempDirectory("pg2lite-" + name);
    String topic = stack.kafka().uniqueTopicName(name);
    WorkerProcess worker = WorkerProcess.start(stack.kafka().bootstrapServers(), HEAP, work, true);
    try (TestDatabase db = stack.postgres().newDatabase(name); SqliteFiles files = new SqliteFiles()) {
      db.execute(CREATE, "CREATE PUBLICATION " + name + "_pub FOR TABLE doc");
      insertRows(db, 1, 0); // copied by the initial backfill
      Path replica = files.newFile("r");
      Pipeline.startConnectors(stack, worker.rest(), name, db, topic, replica, true, Map.of(), WAIT);
      awaitEqual(db, replica, "after the copy");

      insertRows(db, 101, 1000);
      awaitEqual(db, replica, "after the inserts");
      updateRows(db, 101, 2000);
      updateRows(db, 1, 3000); // rows the copy wrote, updated live
      awaitEqual(db, replica, "after the updates");
      // The key of a row with a 30 MB value: the unchanged value is not in the update (TOAST), the replica moves it.
      db.execute("UPDATE doc SET id = 1000 WHERE id = 105");
      awaitEqual(db, replica, "after the key update");

      try (TopicReader log = new TopicReader(stack.kafka().bootstrapServers(), topic)) {
        int largest = 0;
        long parts = 0;
        // Read in slices and let each go: the log holds gigabytes.
        for (List<ConsumerRecord<byte[], byte[]>> slice; !(slice = log.read(200, Duration.ofSeconds(5))).isEmpty(); ) {
          for (ConsumerRecord<byte[], byte[]> r : slice) {
            largest = Math.max(largest, r.value().length);
            parts += isPart(r) ? 1 : 0;
          }
        }
        assertTrue(largest <= 1_048_576, "every record within the default limits: " + largest);
        int largestValue = java.util.Arrays.stream(SIZES).max().orElseThrow();
        assertTrue(parts > 3L * largestValue / 1_048_576, "the largest values went as parts: " + parts);
      }
      assertTrue(worker.alive(), "the worker ran within its " + HEAP + " heap");
      System.out.println("LargeValuesIT: the worker's peak heap was " + worker.peakHeapMb(0) + " MB (-Xmx" + HEAP + ")");
      assertTrue(worker.rest().status(name + "-source").isRunning() && worker.rest().status(name + "-sink").isRunning());
      worker.rest().delete(name + "-sink");
      worker.rest().delete(name + "-source");
      awaitSlotReleased(worker.rest(), db, name);
    } finally {
      worker.close();
    }
  }

  private static boolean isPart(ConsumerRecord<byte[], byte[]> r) {
    Header kind = r.headers().lastHeader(ChangeLogHeaders.KIND);
    return kind != null && "data".equals(new String(kind.value(), StandardCharsets.UTF_8))
        && new String(r.value(), 0, Math.min(200, r.value().length), StandardCharsets.UTF_8).contains("\"tag\":\"part\"");
  }

  /**
   * The worker dies while a 30 MB row is half written (held after its first poll of parts, which
   * at-least-once writes at once and exactly-once commits: a split bound of 4 MiB); a new worker
   * in the cluster closes the cut transaction with a rollback, writes it again whole, and the
   * replica ends equal to Postgres with every row once.
   */
  @ParameterizedTest(name = "exactly-once {0}")
  @ValueSource(booleans = {true, false})
  void aWorkerKilledWhileASplitRowIsHalfWrittenIsTakenOverWithNothingLostOrTwice(boolean exactlyOnce,
      TestStack stack) throws Exception {
    String name = exactlyOnce ? "split_kill_eos" : "split_kill_alo";
    Path work = Files.createTempDirectory("pg2lite-" + name);
    String topic = stack.kafka().uniqueTopicName(name);
    WorkerProcess first = WorkerProcess.start(stack.kafka().bootstrapServers(), HEAP, work, exactlyOnce, null,
        Map.of(), List.of("-D" + TestHolds.PROPERTY + "=" + TestHolds.TRANSACTION + name + "_slot=1"));
    WorkerProcess second = null;
    try (TestDatabase db = stack.postgres().newDatabase(name); SqliteFiles files = new SqliteFiles()) {
      db.execute(CREATE, "CREATE PUBLICATION " + name + "_pub FOR TABLE doc");
      Path replica = files.newFile("r");
      Pipeline.startConnectors(stack, first.rest(), name, db, topic, replica, exactlyOnce,
          Map.of("exactly.once.split.bytes", Integer.toString(4 << 20)), WAIT);
      // One transaction: the 30 MB row first, then enough small rows that the stream's first batch
      // ends inside the transaction, where the hold stops the source.
      db.execute("BEGIN; INSERT INTO doc (id, body) VALUES (1, " + value("body", 30 * MB, 7) + "); "
          + "INSERT INTO doc (id, body) SELECT g, 'small ' || g FROM generate_series(2, 20001) g; COMMIT");
      try (TopicReader log = new TopicReader(stack.kafka().bootstrapServers(), topic, "read_committed")) {
        long[] parts = {0};
        Await.until("parts of the large row written", WAIT,
            () -> (parts[0] += log.read(1000, Duration.ofMillis(200)).stream().filter(LargeValuesIT::isPart).count())
                >= 3);
        assertTrue(parts[0] < 28, "the row is half written when the worker dies: " + parts[0] + " parts");
      }
      first.kill();
      second = WorkerProcess.start(stack.kafka().bootstrapServers(), HEAP, work, exactlyOnce, first.groupId());
      ConnectRestClient again = second.rest();
      Await.until("both connectors running on the new worker", WAIT,
          () -> again.status(name + "-source").isRunning() && again.status(name + "-sink").isRunning());
      db.execute("INSERT INTO doc (id, data) VALUES (0, " + value("data", 2 * MB, 8) + ")");
      awaitEqual(db, replica, "after the take-over");
      assertEquals(List.of(List.of("20002", "20002")), Pipeline.replica(replica,
          "SELECT count(*), count(DISTINCT id) FROM doc"), "every row once");
      again.delete(name + "-sink");
      again.delete(name + "-source");
      awaitSlotReleased(again, db, name);
    } finally {
      first.kill();
      if (second != null) {
        second.close();
      }
    }
  }

  private static void awaitSlotReleased(ConnectRestClient rest, TestDatabase db, String name) {
    Await.until("connectors gone and slot released", WAIT, () -> {
      try {
        return rest.connectors().isEmpty() && db.queryColumn("SELECT active::text FROM pg_replication_slots "
            + "WHERE slot_name = '" + name + "_slot'").stream().noneMatch("true"::equals);
      } catch (SQLException e) {
        throw new IllegalStateException(e);
      }
    });
  }
}
