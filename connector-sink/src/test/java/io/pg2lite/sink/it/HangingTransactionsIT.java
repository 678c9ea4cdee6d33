package io.pg2lite.sink.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import io.pg2lite.connect.kafka.hanging.Runbook;
import io.pg2lite.source.watch.HangingTransactionsExtension;
import io.pg2lite.testkit.ConnectorConfigs;
import io.pg2lite.testkit.TestStack;
import io.pg2lite.testkit.TestStackExtension;
import io.pg2lite.testkit.connect.ConnectRestClient;
import io.pg2lite.testkit.connect.ConnectWorker;
import io.pg2lite.testkit.kafka.KafkaBroker;
import io.pg2lite.testkit.postgres.TestDatabase;
import io.pg2lite.testkit.sqlite.SqliteFiles;
import io.pg2lite.testkit.support.Await;
import io.pg2lite.testkit.support.ConsoleCapture;
import io.pg2lite.testkit.support.QueryRows;
import java.lang.management.ManagementFactory;
import java.nio.file.Path;
import java.sql.Connection;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import javax.management.JMException;
import javax.management.ObjectName;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Issue 28: a hanging Kafka transaction is seen by the product (ADR 0038). The broker's
 * coordinator is made to forget a transaction left open over a source's change log and its
 * offsets topic ({@link KafkaBroker#forgetTransactions}), the state a broker restart left in
 * ADR 0018; Connect then cannot start the source (its offsets topic is read read_committed before
 * {@code start()}), and the sinks stall behind the change log.
 *
 * <p>Within a minute of the transaction's last write: the worker's REST extension reports both
 * partitions (log line with the runbook step, MBean, {@code GET /pg2lite/hanging-transactions}),
 * and a sink reports the change log's (log line, MBean). A sink with
 * {@code hanging.transactions.abort=true} then aborts the change log's, and a worker joining with
 * {@code pg2lite.hanging.transactions.abort=true} the offsets topic's: the source starts and the
 * replica ends equal to Postgres. One flow, because each report needs the rule's 30 s of idle
 * producer and 10 s between two looks.
 */
@ExtendWith(TestStackExtension.class)
class HangingTransactionsIT {
  private static final Duration WITHIN = Duration.ofSeconds(60);
  private static final Duration WAIT = Duration.ofSeconds(90);
  private static final String LOG = "hang-log";
  private static final String OFFSETS = "hang-offsets";

  @Test
  void aHangingTransactionIsReportedWithinAMinuteAndTheAbortSettingsEndIt(TestStack stack) throws Exception {
    try (KafkaBroker kafka = KafkaBroker.startDedicated(); SqliteFiles files = new SqliteFiles();
        TestDatabase db = stack.postgres().newDatabase("hang"); ConsoleCapture console = ConsoleCapture.stderr()) {
      db.execute("CREATE TABLE t (id int PRIMARY KEY, v text)", "INSERT INTO t SELECT g, 'v' || g FROM "
          + "generate_series(1, 50) g", "CREATE PUBLICATION hang_pub FOR TABLE t");
      String bootstrap = kafka.bootstrapServers();
      kafka.createTopic(LOG, 1);
      kafka.createTopic(OFFSETS, 1, Map.of("cleanup.policy", "compact")); // Connect requires it of an offsets topic
      long lastWrite = leaveTransactionOpen(bootstrap);
      kafka.forgetTransactions();
      System.out.printf("hang: the coordinator forgot the transaction %d ms after its last write%n",
          System.currentTimeMillis() - lastWrite);
      List<ConnectWorker> workers = new ArrayList<>();
      try {
        ConnectWorker reporting = worker(bootstrap, null, false);
        workers.add(reporting);
        Map<String, String> source = ConnectorConfigs.source(stack.postgres(), bootstrap, "hang-source", db.name(),
            "hang", LOG);
        source.put("offsets.storage.topic", OFFSETS);
        reporting.rest().putConnector("hang-source", source);
        Path replica = files.newFile("report");
        reporting.rest().putConnector("hang-sink", ConnectorConfigs.sink(bootstrap, "hang-sink", LOG, replica));

        // 1. Reported within a minute of the last write, by the worker (both partitions) and the sink (its log's).
        String worker = "seen by the Connect worker of cluster " + reporting.groupId();
        Await.until("the worker's and the sink's reports", WITHIN.minusMillis(System.currentTimeMillis() - lastWrite),
            () -> console.linesWith("Hanging Kafka transaction on " + OFFSETS + "-0", worker).size() == 1
                && console.linesWith("Hanging Kafka transaction on " + LOG + "-0", worker).size() == 1
                && console.linesWith("Hanging Kafka transaction on " + LOG + "-0", "sink connector hang-sink:").size()
                    == 1);
        System.out.printf("hang: reported %d ms after the transaction's last write%n",
            System.currentTimeMillis() - lastWrite);
        JsonNode listed = reporting.rest().get("pg2lite/hanging-transactions");
        assertEquals(2, listed.size(), listed.toString());
        long producer = listed.get(0).path("producerId").asLong();
        for (JsonNode h : listed) {
          assertEquals(producer, h.path("producerId").asLong(), "one transaction over both topics: " + listed);
          assertEquals(Runbook.SECTION, h.path("runbook").asText());
          assertTrue(Set.of(LOG, OFFSETS).contains(h.path("topic").asText()), listed.toString());
          assertEquals("kafka-transactions.sh --bootstrap-server " + bootstrap + " abort --topic "
              + h.path("topic").asText() + " --partition 0 --start-offset 0", h.path("abortCommand").asText());
        }
        String line = console.linesWith("Hanging Kafka transaction on " + OFFSETS + "-0", worker).get(0);
        for (String part : List.of("producer " + producer + " epoch", "since offset 0", Runbook.SECTION,
            "abort --topic " + OFFSETS + " --partition 0 --start-offset 0",
            "(or set pg2lite.hanging.transactions.abort=true)")) {
          assertTrue(line.contains(part), "'" + part + "' in: " + line);
        }
        ObjectName watch = new ObjectName("io.pg2lite:type=hanging-transactions,group="
            + ObjectName.quote(reporting.groupId()));
        assertEquals(2, attribute(watch, "HangingTransactions"));
        assertEquals(LOG + ", " + OFFSETS, ManagementFactory.getPlatformMBeanServer().getAttribute(watch,
            "WatchedTopics"));
        ObjectName sink = new ObjectName("io.pg2lite:type=sink,connector=" + ObjectName.quote("hang-sink"));
        assertEquals(1, attribute(sink, "HangingTransactions"));
        assertTrue(!running(reporting, "hang-source"), "the source cannot start");

        // 2. A sink that may abort aborts the change log's; the other sink sees it end.
        Map<String, String> aborting = ConnectorConfigs.sink(bootstrap, "hang-sink-abort", LOG,
            files.newFile("abort"));
        aborting.put("hanging.transactions.abort", "true");
        reporting.rest().putConnector("hang-sink-abort", aborting);
        ObjectName abortingSink = new ObjectName("io.pg2lite:type=sink,connector="
            + ObjectName.quote("hang-sink-abort"));
        Await.until("the sink's abort", WAIT,
            () -> attributeOrZero(abortingSink, "HangingTransactionsAbortedTotal") == 1L);
        assertEquals(1, console.linesWith("Aborted the hanging Kafka transaction on " + LOG + "-0",
            "hanging.transactions.abort=true").size(), "the sink says it aborted it");
        Await.until("the reporting sink sees it end", WAIT, () -> attributeOrZero(sink, "HangingTransactions") == 0);
        assertTrue(!console.linesWith(LOG + "-0 (producer " + producer, "is no longer open").isEmpty(),
            "the reporting sink says it ended");

        // 3. A worker that may abort joins the cluster: it aborts the offsets topic's, and the source starts.
        long joined = System.currentTimeMillis();
        workers.add(worker(bootstrap, reporting.groupId(), true));
        Await.until("the worker's abort", WAIT, () -> !console.linesWith("Aborted the hanging Kafka transaction on "
            + OFFSETS + "-0", "pg2lite.hanging.transactions.abort=true").isEmpty());
        System.out.printf("hang: the worker with the abort on aborted it %d ms after it was started%n",
            System.currentTimeMillis() - joined);
        reporting.rest().awaitRunning("hang-source", WAIT);
        Await.until("the replica equal to Postgres", WAIT, () -> rows(db, replica));
      } finally {
        for (int i = workers.size() - 1; i >= 0; i--) {
          workers.get(i).close();
        }
      }
    }
  }

  /**
   * Writes one record to the change log and one to the offsets topic in one transaction, as an
   * exactly-once source does, and leaves it open: the producer is closed at once, without the
   * abort a graceful close would send. Returns when it last wrote (epoch ms).
   */
  private static long leaveTransactionOpen(String bootstrap) throws Exception {
    Properties props = new Properties();
    props.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
    props.put(ProducerConfig.TRANSACTIONAL_ID_CONFIG, "hang-stuck");
    KafkaProducer<String, String> p = new KafkaProducer<>(props, new StringSerializer(), new StringSerializer());
    p.initTransactions();
    p.beginTransaction();
    p.send(new ProducerRecord<>(LOG, "k", "never committed")).get();
    p.send(new ProducerRecord<>(OFFSETS, "k", "never committed")).get();
    long at = System.currentTimeMillis();
    p.close(Duration.ZERO);
    return at;
  }

  /** A worker with the extension; joining {@code group} when not null, aborting when {@code abort}. */
  private static ConnectWorker worker(String bootstrap, String group, boolean abort) {
    ConnectWorker.Builder b = ConnectWorker.builder(bootstrap)
        .set("rest.extension.classes", HangingTransactionsExtension.class.getName())
        .set("pg2lite.hanging.transactions.abort", String.valueOf(abort));
    return (group == null ? b : b.groupId(group)).start();
  }

  /** Whether {@code connector} and its tasks run; false too while Connect has no status of it (never started). */
  private static boolean running(ConnectWorker worker, String connector) {
    try {
      return worker.rest().status(connector).isRunning();
    } catch (ConnectRestClient.RestException e) {
      if (e.status() == 404) {
        return false;
      }
      throw e;
    }
  }

  private static boolean rows(TestDatabase db, Path replica) {
    String sql = "SELECT id, v FROM t ORDER BY id";
    try (Connection pg = db.connect(); Connection lite = SqliteFiles.open(replica)) {
      return QueryRows.of(pg, sql).equals(QueryRows.of(lite, sql));
    } catch (java.sql.SQLException e) {
      return false; // the replica's table does not exist yet
    }
  }

  private static Number attribute(ObjectName name, String attribute) throws JMException {
    return (Number) ManagementFactory.getPlatformMBeanServer().getAttribute(name, attribute);
  }

  private static long attributeOrZero(ObjectName name, String attribute) {
    try {
      return attribute(name, attribute).longValue();
    } catch (JMException e) {
      return 0; // not registered yet
    }
  }
}
