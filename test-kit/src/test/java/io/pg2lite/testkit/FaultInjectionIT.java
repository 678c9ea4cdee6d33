package io.pg2lite.testkit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pg2lite.testkit.kafka.KafkaBroker;
import io.pg2lite.testkit.kafka.TopicReader;
import io.pg2lite.testkit.postgres.PostgresServer;
import io.pg2lite.testkit.postgres.TestDatabase;
import io.pg2lite.testkit.support.Await;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.concurrent.ExecutionException;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.TimeoutException;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.Test;

/**
 * The test kit's fault injection does what fault tests rely on: a dedicated Postgres restarts
 * and crashes on its own port and data directory, and a dedicated broker stops and starts on its
 * own port with clients created before the stop carrying on by themselves.
 */
class FaultInjectionIT {

  @Test
  void postgresRestartFastKeepsPortDataAndSlots() throws Exception {
    try (PostgresServer pg = PostgresServer.startDedicated(); TestDatabase db = pg.newDatabase("faults")) {
      int port = pg.port();
      db.execute("CREATE TABLE item (id int PRIMARY KEY)", "INSERT INTO item VALUES (1)");
      db.createLogicalSlot("fault_slot");
      String startedAt = db.queryColumn("SELECT pg_postmaster_start_time()::text").get(0);
      try (Connection before = db.connect()) {
        long t0 = System.nanoTime();
        pg.restartFast();
        System.out.printf("FaultInjectionIT: postgres restartFast took %d ms%n", (System.nanoTime() - t0) / 1_000_000);
        assertThrows(SQLException.class, () -> query(before, "SELECT 1"), "connections are dropped by the restart");
      }
      assertEquals(port, pg.port());
      try (Connection c = DriverManager.getConnection("jdbc:postgresql://localhost:" + port + "/" + db.name(),
          pg.user(), pg.password())) {
        assertEquals("1", query(c, "SELECT 1"));
      }
      assertNotEquals(startedAt, db.queryColumn("SELECT pg_postmaster_start_time()::text").get(0),
          "a new postmaster is running");
      assertEquals(List.of("logical"), db.queryColumn("SHOW wal_level"));
      assertEquals(List.of("fault_slot"), db.slots());
      assertEquals(List.of("1"), db.queryColumn("SELECT id FROM item"));
    }
  }

  @Test
  void postgresIsDownAfterKillImmediateAndStopAndBackAfterStartAgain() throws Exception {
    try (PostgresServer pg = PostgresServer.startDedicated(); TestDatabase db = pg.newDatabase("faults")) {
      int port = pg.port();
      db.execute("CREATE TABLE item (id int PRIMARY KEY)", "INSERT INTO item VALUES (1)");
      db.createLogicalSlot("fault_slot");

      long t0 = System.nanoTime();
      pg.killImmediate();
      long killed = System.nanoTime();
      assertFalse(pg.isRunning());
      assertThrows(SQLException.class, () -> shortConnect(pg, db.name()), "nothing answers while it is down");
      assertFalse(portAccepts("localhost", port));
      pg.startAgain();
      System.out.printf("FaultInjectionIT: postgres killImmediate took %d ms, startAgain (crash recovery) %d ms%n",
          (killed - t0) / 1_000_000, (System.nanoTime() - killed) / 1_000_000);
      assertTrue(pg.isRunning());
      assertEquals(port, pg.port());
      try (Connection c = shortConnect(pg, db.name())) {
        assertEquals("1", query(c, "SELECT 1"));
      }
      assertEquals(List.of("fault_slot"), db.slots(), "the slot survives the crash");
      assertEquals(List.of("1"), db.queryColumn("SELECT id FROM item"), "committed rows survive the crash");

      db.execute("INSERT INTO item VALUES (2)");
      t0 = System.nanoTime();
      pg.stop();
      long stopped = System.nanoTime();
      Thread.sleep(1000); // stays down until started again
      assertThrows(SQLException.class, () -> shortConnect(pg, db.name()));
      long t1 = System.nanoTime();
      pg.startAgain();
      System.out.printf("FaultInjectionIT: postgres stop took %d ms, startAgain %d ms%n",
          (stopped - t0) / 1_000_000, (System.nanoTime() - t1) / 1_000_000);
      assertEquals(List.of("1", "2"), db.queryColumn("SELECT id FROM item ORDER BY id"));
      assertEquals(List.of("fault_slot"), db.slots());
      assertThrows(IllegalStateException.class, pg::startAgain, "a running server cannot be started again");
    }
  }

  @Test
  void brokerStopsAndStartsOnItsPortAndClientsCarryOn() throws Exception {
    try (KafkaBroker kafka = KafkaBroker.startDedicated()) {
      String txTopic = kafka.uniqueTopicName("faults-tx");
      String plainTopic = kafka.uniqueTopicName("faults-plain");
      kafka.createTopic(txTopic, 1);
      kafka.createTopic(plainTopic, 1);
      TopicPartition tp = new TopicPartition(txTopic, 0);
      String hostPort = kafka.bootstrapServers().split(",")[0];
      String host = hostPort.substring(0, hostPort.lastIndexOf(':'));
      int port = Integer.parseInt(hostPort.substring(hostPort.lastIndexOf(':') + 1));

      try (KafkaProducer<String, String> tx = producer(kafka, Map.of(ProducerConfig.TRANSACTIONAL_ID_CONFIG, "faults-tx"));
          KafkaProducer<String, String> impatient = producer(kafka, Map.of(
              ProducerConfig.MAX_BLOCK_MS_CONFIG, "2000", ProducerConfig.REQUEST_TIMEOUT_MS_CONFIG, "1000",
              ProducerConfig.DELIVERY_TIMEOUT_MS_CONFIG, "3000"));
          KafkaConsumer<byte[], byte[]> consumer = committedConsumer(kafka, "faults-group")) {
        tx.initTransactions();
        tx.beginTransaction();
        tx.send(new ProducerRecord<>(txTopic, "k", "before-1"));
        tx.send(new ProducerRecord<>(txTopic, "k", "before-2"));
        tx.commitTransaction();
        impatient.send(new ProducerRecord<>(plainTopic, "k", "plain-before")).get();

        consumer.assign(List.of(tp));
        assertEquals(List.of("before-1", "before-2"), poll(consumer, 2));
        consumer.commitSync();
        long committed = consumer.committed(Set.of(tp)).get(tp).offset();

        long t0 = System.nanoTime();
        kafka.stopBroker();
        long stopped = System.nanoTime();
        assertFalse(kafka.isBrokerRunning());
        assertFalse(portAccepts(host, port), "the broker port refuses connections while it is down");
        long sendAt = System.nanoTime();
        ExecutionException failed = assertThrows(ExecutionException.class,
            () -> impatient.send(new ProducerRecord<>(plainTopic, "k", "plain-during")).get());
        long failedAfter = (System.nanoTime() - sendAt) / 1_000_000;
        assertInstanceOf(TimeoutException.class, failed.getCause(), "a produce times out while the broker is down");
        assertTrue(failedAfter < 10_000, "the produce failed after its 3 s delivery timeout, not " + failedAfter + " ms");
        assertTrue(consumer.poll(Duration.ofMillis(500)).isEmpty());

        long t1 = System.nanoTime();
        kafka.startBroker();
        long started = System.nanoTime();
        assertTrue(kafka.isBrokerRunning());
        assertTrue(portAccepts(host, port), "the broker is back on the same port");

        // The same producer instances, created before the stop, work again by themselves.
        Await.until("the impatient producer delivers again", Duration.ofSeconds(60), () -> {
          try {
            impatient.send(new ProducerRecord<>(plainTopic, "k", "plain-after")).get();
            return true;
          } catch (ExecutionException e) {
            return false;
          } catch (InterruptedException e) {
            throw new IllegalStateException(e);
          }
        });
        long plainBack = System.nanoTime();
        tx.beginTransaction();
        tx.send(new ProducerRecord<>(txTopic, "k", "after-1"));
        tx.commitTransaction();
        System.out.printf("FaultInjectionIT: broker stop took %d ms, start %d ms, first produce after start %d ms,"
            + " first transaction after start %d ms%n", (stopped - t0) / 1_000_000, (started - t1) / 1_000_000,
            (plainBack - started) / 1_000_000, (System.nanoTime() - plainBack) / 1_000_000);

        // The consumer created before the stop resumes where it was; the group's offset survived.
        assertEquals(List.of("after-1"), poll(consumer, 1));
        try (KafkaConsumer<byte[], byte[]> fresh = committedConsumer(kafka, "faults-group")) {
          OffsetAndMetadata offset = fresh.committed(Set.of(tp), Duration.ofSeconds(30)).get(tp);
          assertEquals(committed, offset.offset(), "the committed group offset survives the restart");
        }
      }
      try (TopicReader all = new TopicReader(kafka.bootstrapServers(), txTopic);
          TopicReader plain = new TopicReader(kafka.bootstrapServers(), plainTopic)) {
        assertEquals(List.of("before-1", "before-2", "after-1"), values(all.read(3, Duration.ofSeconds(30))));
        List<String> plainValues = values(plain.read(2, Duration.ofSeconds(30)));
        assertEquals("plain-before", plainValues.get(0));
        assertTrue(plainValues.contains("plain-after"), plainValues.toString());
        assertFalse(plainValues.contains("plain-during"), "the timed-out record was not delivered: " + plainValues);
      }
    }
  }

  private static KafkaProducer<String, String> producer(KafkaBroker kafka, Map<String, String> extra) {
    Properties props = new Properties();
    props.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, kafka.bootstrapServers());
    props.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName());
    props.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName());
    props.putAll(extra);
    return new KafkaProducer<>(props);
  }

  private static KafkaConsumer<byte[], byte[]> committedConsumer(KafkaBroker kafka, String group) {
    Properties props = new Properties();
    props.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, kafka.bootstrapServers());
    props.put(ConsumerConfig.GROUP_ID_CONFIG, group);
    props.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
    props.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
    props.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false");
    props.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class.getName());
    props.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class.getName());
    return new KafkaConsumer<>(props);
  }

  private static List<String> poll(KafkaConsumer<byte[], byte[]> consumer, int count) {
    List<ConsumerRecord<byte[], byte[]>> records = new ArrayList<>();
    long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
    while (records.size() < count && System.nanoTime() < deadline) {
      consumer.poll(Duration.ofMillis(200)).forEach(records::add);
    }
    return values(records);
  }

  private static List<String> values(List<ConsumerRecord<byte[], byte[]>> records) {
    return records.stream().map(r -> new String(r.value(), StandardCharsets.UTF_8)).toList();
  }

  private static Connection shortConnect(PostgresServer pg, String database) throws SQLException {
    Properties props = new Properties();
    props.setProperty("user", pg.user());
    props.setProperty("password", pg.password());
    props.setProperty("connectTimeout", "2");
    return DriverManager.getConnection(pg.jdbcUrl(database), props);
  }

  private static String query(Connection c, String sql) throws SQLException {
    try (Statement s = c.createStatement(); var rs = s.executeQuery(sql)) {
      rs.next();
      return rs.getString(1);
    }
  }

  private static boolean portAccepts(String host, int port) {
    try (Socket s = new Socket()) {
      s.connect(new InetSocketAddress(host, port), 1000);
      return true;
    } catch (IOException e) {
      return false;
    }
  }
}
